/**
 * The built gateway, as `npm start` and the Docker image run it: scripts/bundle.mjs builds it into a folder of its
 * own inside the package, and that build starts, knows its version, finds its shipped files (the configuration's
 * defaults, the bundled skills, the chat page), answers a Telegram message through a tool call with the model
 * behind either provider, and reads a reminder written in Chinese. What the bundle could break is what runs
 * bundled: a package that looks for its own files or checks a class by name, a path taken relative to a module's
 * file, the regular expressions the build escapes. The build refuses an output folder outside the package.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { decode } from "@jridgewell/sourcemap-codec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI } from "../fakes/openai-server.js";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram/server.js";
import { alice, directChat, text } from "../fakes/telegram/updates.js";
import { spawnGateway, type GatewayProcess } from "../helpers/gateway-process.js";
import { eventually } from "../helpers/wait.js";

const run = promisify(execFile);

describe("the bundled build", () => {
  let outDir: string | undefined;
  let llm: FakeOpenAI;
  const telegrams: FakeTelegram[] = [];
  const gateways: GatewayProcess[] = [];
  const dataDirs: string[] = [];

  beforeAll(async () => {
    // Inside the package, as dist/ is: the build finds config/ and public/ above it, its packages in node_modules.
    const cache = join("node_modules", ".cache");
    await mkdir(cache, { recursive: true });
    outDir = await mkdtemp(join(cache, "switchboard-bundle-test-"));
    await run(process.execPath, ["scripts/bundle.mjs", outDir]);
    llm = await startFakeOpenAI();
  }, 60_000);

  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop("SIGTERM")));
    await llm?.close();
    await Promise.all(telegrams.map((t) => t.close()));
    await Promise.all([outDir ?? [], ...dataDirs].flat().map((dir) => rm(dir, { recursive: true, force: true })));
  });

  /**
   * A gateway from the build on its own data folder and its own fake Telegram (a new gateway would be handed the
   * updates an earlier one left unconfirmed); each test stops its own.
   */
  async function startBuilt(provider: "openai-compatible" | "anthropic"): Promise<{ url: string; gateway: GatewayProcess; telegram: FakeTelegram }> {
    const telegram = await startFakeTelegram();
    telegrams.push(telegram);
    const dataDir = await mkdtemp(join(tmpdir(), "switchboard-bundle-"));
    dataDirs.push(dataDir);
    const gateway = await spawnGateway(
      dataDir,
      {
        dataDir,
        http: { port: 0 },
        llm: { provider, baseUrl: llm.url, model: "fake-model", apiKey: "sk-bundle-test" },
        memory: { enabled: false },
        access: { owners: [`telegram:${alice.id}`] },
        channels: { telegram: { token: telegram.token, apiRoot: telegram.url } },
      },
      [join(outDir!, "cli.js")],
    );
    gateways.push(gateway);
    const url = await gateway.url(30_000);
    await gateway.waitForLog((line) => line.msg === "skills registered" && line.count === 2, "the two bundled skills", 5_000);
    return { url, gateway, telegram };
  }

  it("prints the package's version", async () => {
    const { version } = JSON.parse(await readFile("package.json", "utf8")) as { version: string };
    const { stdout } = await run(process.execPath, [join(outDir!, "cli.js"), "--version"]);
    expect(stdout.trim()).toBe(version);
  });

  it("refuses to build into a folder outside the package, which it would empty first", async () => {
    const outside = await mkdtemp(join(tmpdir(), "switchboard-bundle-outside-"));
    dataDirs.push(outside);
    const kept = join(outside, "kept.txt");
    await writeFile(kept, "still here");
    await expect(run(process.execPath, ["scripts/bundle.mjs", outside])).rejects.toMatchObject({
      stderr: expect.stringContaining(`bundle: ${outside} is not a folder inside`),
    });
    expect(await readFile(kept, "utf8")).toBe("still here");
  });

  it("maps code after an escaped regular expression back to its line in src/", async () => {
    const chunks = join(outDir!, "chunks");
    let name = "";
    let chunk = "";
    for (const file of (await readdir(chunks)).filter((entry) => entry.endsWith(".js"))) {
      [name, chunk] = [file, await readFile(join(chunks, file), "utf8")];
      if (chunk.includes("CHINESE_WEEKDAYS.indexOf")) break;
    }
    expect(chunk).toContain("\\u6bcf"); // the reminder parser's 每, escaped in the same chunk
    const at = chunk.indexOf("CHINESE_WEEKDAYS.indexOf");
    expect(at).toBeGreaterThan(-1);
    const line = chunk.slice(0, at).split("\n").length - 1;
    const column = at - (chunk.lastIndexOf("\n", at) + 1);

    const map = JSON.parse(await readFile(join(chunks, `${name}.map`), "utf8")) as { sources: string[]; mappings: string };
    const segment = decode(map.mappings)[line]!.findLast(([generated]) => generated <= column)!;
    const [, source, originalLine] = segment as [number, number, number, number];
    expect(map.sources[source]).toMatch(/src\/scheduler\/natural\.ts$/);
    const sourceLines = (await readFile("src/scheduler/natural.ts", "utf8")).split("\n");
    expect(sourceLines[originalLine]).toContain("CHINESE_WEEKDAYS.indexOf");
  });

  for (const provider of ["openai-compatible", "anthropic"] as const) {
    it(`starts and answers a Telegram message through a tool call (${provider})`, { timeout: 60_000 }, async () => {
      const { url, gateway, telegram } = await startBuilt(provider);
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<html");

      const requestsBefore = llm.requests.length;
      llm.enqueue({ toolCalls: [{ name: "get_skill_info", arguments: { skill_name: "date-helper" } }] });
      llm.respondWith(() => {
        const result = JSON.stringify(llm.lastToolResults().at(-1)?.content ?? "");
        return { text: `read it (${provider}): ${result.includes("time-zone") ? "has the skill's text" : "no skill text"}` };
      });
      telegram.addUpdate(text(directChat(alice), `what time is it? (${provider})`));

      const reply = await eventually(
        () => telegram.sent.find((m) => m.text?.startsWith(`read it (${provider})`) === true),
        `the ${provider} reply on Telegram`,
        30_000,
      );
      expect(reply.text).toBe(`read it (${provider}): has the skill's text`);
      expect(llm.requests.slice(requestsBefore).map((r) => r.path)).toEqual(
        provider === "anthropic" ? ["/v1/messages", "/v1/messages"] : ["/v1/chat/completions", "/v1/chat/completions"],
      );
      await gateway.stop("SIGTERM");
    });
  }

  it("sets a reminder written in Chinese (the reminder parser's expressions are escaped in the build)", { timeout: 60_000 }, async () => {
    const { gateway, telegram } = await startBuilt("openai-compatible");
    telegram.addUpdate(text(directChat(alice), "/remind 每天早上9点 喝水"));
    const reply = await eventually(() => telegram.sent.find((m) => m.text?.includes("/cancel") === true), "the reminder's confirmation", 30_000);
    // Every day at 9: read by the Chinese pattern (a one-off reminder would say "is set for").
    expect(reply.text).toMatch(/^Reminder .+喝水.+ runs .+; the first run is /);
    await gateway.stop("SIGTERM");
  });
});
