/**
 * Downloading a file someone sent: Slack's private file URLs need the bot token, which therefore goes only to
 * Slack's own hosts (or the configured API URL's, a test server or an Enterprise Grid proxy), never to whatever
 * URL an event names. The body is written as it streams, stopped at the size limit.
 */
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import { formatBytes } from "../../core/text.js";
import type { Attachment } from "../../core/types.js";

const DOWNLOAD_TIMEOUT_MS = 120_000;

export interface DownloadOptions {
  token: string;
  apiUrl: string;
  maxBytes: number;
}

export async function downloadFile(attachment: Attachment, into: string, opts: DownloadOptions): Promise<string> {
  const url = trustedUrl(attachment.ref, opts.apiUrl);
  const label = `Slack file ${attachment.name ?? url.pathname}`;
  const limit = `the download limit is ${formatBytes(opts.maxBytes)} (channels.slack.maxDownloadMB)`;
  if (attachment.size !== undefined && attachment.size > opts.maxBytes) throw new Error(`${label} is ${formatBytes(attachment.size)}; ${limit}`);
  const response = await fetch(url, { headers: { Authorization: `Bearer ${opts.token}` }, signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  if (!response.ok || !response.body) throw new Error(`${label}: download failed with HTTP ${response.status}`);
  // Slack answers a request it does not authorize with its sign-in page, not an error status.
  if ((response.headers.get("content-type") ?? "").startsWith("text/html") && !(attachment.mime ?? "").startsWith("text/html")) {
    throw new Error(`${label}: Slack answered with a web page, not the file (the bot token lacks files:read?)`);
  }
  await mkdir(into, { recursive: true, mode: 0o700 });
  const digest = createHash("sha256").update(attachment.ref).digest("hex").slice(0, 12);
  const path = join(into, `${digest}-${(attachment.name ?? "file").replace(/[^\w.-]+/g, "_").slice(-100)}`);
  const out = createWriteStream(path);
  let bytes = 0;
  try {
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      if (bytes > opts.maxBytes) throw new Error(`${label} is larger than ${formatBytes(opts.maxBytes)}; ${limit}`);
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
    }
    out.end();
    await finished(out);
  } catch (err) {
    out.destroy();
    await rm(path, { force: true });
    throw err;
  }
  return path;
}

function trustedUrl(ref: string, apiUrl: string): URL {
  let url: URL;
  try {
    url = new URL(ref);
  } catch {
    throw new Error(`Not a Slack file URL: ${JSON.stringify(ref.slice(0, 100))}`);
  }
  const slack = url.protocol === "https:" && (url.hostname === "slack.com" || url.hostname.endsWith(".slack.com"));
  if (!slack && url.origin !== new URL(apiUrl).origin) throw new Error(`Refusing to send the bot token to ${url.origin}: not a Slack host`);
  return url;
}
