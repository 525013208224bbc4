/**
 * The chat page, public/webchat.html, and the script it loads (public/build/webchat/webchat.js, built by
 * `npm run build` from console/webchat: the Markdown renderer and the page's words in English and Chinese). Served with a Content-Security-Policy that allows exactly its own
 * inline script and style (by hash) and the gateway's own scripts, so even if bot text slipped past the
 * sanitizer, injected markup could not run code.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { packageFile } from "../../infra/package-files.js";

const PAGE_FILE = packageFile("public", "webchat.html");
const SCRIPT_FILE = packageFile("public", "build", "webchat", "webchat.js");

export interface WebPage {
  html: string;
  headers: Record<string, string>;
}

export async function loadPage(): Promise<WebPage> {
  const html = await readFile(PAGE_FILE, "utf8");
  const csp = [
    "default-src 'none'",
    `script-src 'self' ${inlineHashes(html, "script")}`,
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

/** The page's script; null when it was not built (the page then shows bot text as plain text, in English). */
export async function loadPageScript(): Promise<string | null> {
  return readFile(SCRIPT_FILE, "utf8").catch(() => null);
}

function inlineHashes(html: string, tag: "script" | "style"): string {
  const blocks = [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))];
  if (blocks.length === 0) return "'none'";
  return blocks.map((m) => `'sha256-${createHash("sha256").update(m[1] ?? "").digest("base64")}'`).join(" ");
}
