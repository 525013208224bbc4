/**
 * Every text key the console's code and WebChat's page name literally is in their English catalog (the catalogs'
 * test holds the other languages to English), so a typo shows here instead of as a raw key in the page.
 */
import { readdir, readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import consoleEn from "../../console/i18n/en.json" with { type: "json" };
import webchatEn from "../../console/webchat/i18n/en.json" with { type: "json" };

type Catalog = { [key: string]: string | Catalog };

const root = new URL("../../", import.meta.url);

function has(catalog: Catalog, key: string): boolean {
  let node: string | Catalog | undefined = catalog;
  for (const part of key.split(".")) node = typeof node === "object" ? node[part] : undefined;
  return typeof node === "string";
}

function keysIn(source: string): string[] {
  const calls = [...source.matchAll(/\bt\(\s*"([\w.]+)"/g)].map((m) => m[1]!);
  const attributes = [...source.matchAll(/data-i18n(?:-placeholder|-label)?="([\w.]+)"/g)].map((m) => m[1]!);
  return [...calls, ...attributes];
}

async function sources(dir: string): Promise<string> {
  const files = await readdir(new URL(dir, root), { recursive: true });
  const texts = files.filter((f) => /\.tsx?$/.test(f)).map((f) => readFile(new URL(`${dir}/${f}`, root), "utf8"));
  return (await Promise.all(texts)).join("\n");
}

describe("text keys in the browser pages", () => {
  it("the console names only keys its catalog has", async () => {
    const keys = keysIn(await sources("console/src"));
    expect(keys.length).toBeGreaterThan(50);
    expect(keys.filter((key) => !has(consoleEn, key))).toEqual([]);
  });

  it("WebChat names only keys its catalog has", async () => {
    const keys = keysIn(await readFile(new URL("public/webchat.html", root), "utf8"));
    expect(keys.length).toBeGreaterThan(15);
    expect(keys.filter((key) => !has(webchatEn, key))).toEqual([]);
  });

  it("the check itself notices a key that is missing or names a section", () => {
    expect(keysIn('t("a.b"); t( "c" ) <b data-i18n-label="d.e">')).toEqual(["a.b", "c", "d.e"]);
    expect(has({ a: { b: "x" } }, "a.b")).toBe(true);
    expect(has({ a: { b: "x" } }, "a")).toBe(false);
    expect(has({ a: { b: "x" } }, "a.c")).toBe(false);
  });
});
