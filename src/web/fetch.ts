/**
 * A guarded GET: only http and https, every connection checked by the AddressGuard (through the Agent's connector),
 * redirects followed by hand so each hop's scheme is checked too, the body read up to a byte limit and the whole
 * exchange under one deadline.
 */
import type { Agent } from "undici";
import { request } from "undici";
import { AddressRefusedError } from "../infra/net/address-guard.js";
import { WebError } from "./errors.js";

const MAX_REDIRECTS = 5;
const USER_AGENT = "Mozilla/5.0 (compatible; Switchboard web_fetch)";

export interface FetchLimits {
  maxBytes: number;
  timeoutMs: number;
}

export interface FetchedResource {
  /** After redirects. */
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  /** The body stopped at maxBytes. */
  truncated: boolean;
}

/** Parses `raw` as an http(s) URL or throws a WebError saying what is wrong. */
export function httpUrl(raw: string, base?: string): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new WebError(`"${raw}" is not a valid URL`, "invalid_url");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new WebError(`Only http and https URLs can be fetched, not ${url.protocol}`, "invalid_url");
  }
  return url;
}

export async function guardedGet(agent: Agent, raw: string, limits: FetchLimits, signal: AbortSignal): Promise<FetchedResource> {
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(limits.timeoutMs)]);
  let url = httpUrl(raw);
  try {
    for (let hop = 0; ; hop++) {
      const res = await request(url, {
        method: "GET",
        dispatcher: agent,
        signal: deadline,
        headers: { "user-agent": USER_AGENT, accept: "text/html,application/xhtml+xml,text/*,application/json,application/pdf;q=0.9,*/*;q=0.5" },
      });
      const location = res.headers.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === "string") {
        await res.body.dump();
        if (hop >= MAX_REDIRECTS) throw new WebError(`Too many redirects (more than ${MAX_REDIRECTS}) from ${raw}`, "network");
        url = httpUrl(location, url.href);
        continue;
      }
      const contentType = String(res.headers["content-type"] ?? "application/octet-stream");
      const { body, truncated } = await readCapped(res.body, limits.maxBytes);
      return { url: url.href, status: res.statusCode, contentType, body, truncated };
    }
  } catch (err) {
    throw asWebError(err, url, deadline, signal, limits.timeoutMs);
  }
}

async function readCapped(stream: AsyncIterable<Buffer> & { destroy(): void }, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const room = maxBytes - size;
    chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    size += Math.min(chunk.length, room);
    if (chunk.length >= room && size >= maxBytes) {
      stream.destroy();
      return { body: Buffer.concat(chunks), truncated: true };
    }
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

/** The guard's refusal keeps its words; anything else says which URL failed and how. */
function asWebError(err: unknown, url: URL, deadline: AbortSignal, callerSignal: AbortSignal, timeoutMs: number): Error {
  if (err instanceof WebError) return err;
  const refusal = findRefusal(err);
  if (refusal) return new WebError(refusal.message, "refused");
  if (deadline.aborted && !callerSignal.aborted) return new WebError(`${url.href} did not answer within ${timeoutMs} ms`, "timeout");
  if (callerSignal.aborted) return callerSignal.reason instanceof Error ? callerSignal.reason : new Error("aborted");
  const detail = err instanceof Error ? err.message : String(err);
  return new WebError(`Fetching ${url.href} failed: ${detail}`, "network");
}

function findRefusal(err: unknown): AddressRefusedError | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof AddressRefusedError) return e;
  }
  return undefined;
}
