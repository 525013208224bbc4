/**
 * The chat page, public/webchat.html: one file, no build step. Served with a Content-Security-Policy
 * that allows exactly its own inline script and style (by hash), so even if bot text slipped past the
 * page's escaping, injected markup could not run code.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";

/** The same relative path works from src/ (tsx) and dist/ (built). */
const PAGE_URL = new URL("../../../public/webchat.html", import.meta.url);

export interface WebPage {
  html: string;
  headers: Record<string, string>;
}

export async function loadPage(): Promise<WebPage> {
  const html = await readFile(PAGE_URL, "utf8");
  const csp = [
    "default-src 'none'",
    `script-src ${inlineHashes(html, "script")}`,
    `style-src ${inlineHashes(html, "style")}`,
    "connect-src 'self' ws: wss:",
    "img-src 'self' data: blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
  return {
    html,
    headers: {
      "Content-Security-Policy": csp,
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
      "Cache-Control": "no-cache",
    },
  };
}

function inlineHashes(html: string, tag: "script" | "style"): string {
  const blocks = [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))];
  if (blocks.length === 0) return "'none'";
  return blocks.map((m) => `'sha256-${createHash("sha256").update(m[1] ?? "").digest("base64")}'`).join(" ");
}
