/**
 * Speech-to-text over an OpenAI-compatible `POST {baseUrl}/audio/transcriptions` (Whisper and the many servers
 * that copy its API): multipart with the audio file and the model name, answered with `{ text }`.
 */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { z } from "zod";
import type { CoreConfig } from "../infra/config/core-schema.js";
import type { MediaConfig } from "./config.js";

export interface SttEndpoint {
  baseUrl: string;
  apiKey: string | null;
  model: string;
  language: string | null;
  timeoutMs: number;
}

/** A failed transcription, with a reason that can be shown to the model and the user (never the key). */
export class SttError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = "SttError";
  }
}

/**
 * The endpoint in force, or a reason why there is none. Without its own baseUrl STT uses the LLM's endpoint
 * and key; an STT baseUrl of its own never receives the LLM key.
 */
export function sttEndpointOf(config: Pick<CoreConfig, "llm"> & { media: MediaConfig }): SttEndpoint | { problem: string } {
  const { stt } = config.media;
  if (!stt.enabled) return { problem: "speech-to-text is turned off (media.stt.enabled)" };
  const inherits = stt.baseUrl === null;
  const baseUrl = stt.baseUrl ?? (config.llm.provider === "openai-compatible" ? config.llm.baseUrl : null);
  if (baseUrl === null) return { problem: "no speech-to-text endpoint is configured (set STT_BASE_URL)" };
  const apiKey = stt.apiKey ?? (inherits ? config.llm.apiKey : null);
  return { baseUrl, apiKey, model: stt.model, language: stt.language, timeoutMs: stt.timeoutMs };
}

const transcriptionSchema = z.object({ text: z.string() });

export interface TranscribeOptions {
  mime?: string;
  signal?: AbortSignal;
}

export class SpeechToText {
  constructor(private readonly endpoint: SttEndpoint) {}

  /** The transcript of the audio file at `path`; throws SttError saying what went wrong. */
  async transcribe(path: string, opts: TranscribeOptions = {}): Promise<string> {
    const { baseUrl, apiKey, model, language, timeoutMs } = this.endpoint;
    const form = new FormData();
    const audio = await readFile(path);
    form.set("file", new Blob([audio], { type: opts.mime ?? "application/octet-stream" }), basename(path));
    form.set("model", model);
    form.set("response_format", "json");
    if (language !== null) form.set("language", language);
    const signals = [AbortSignal.timeout(timeoutMs), ...(opts.signal ? [opts.signal] : [])];
    const url = `${baseUrl.replace(/\/+$/, "")}/audio/transcriptions`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        body: form,
        headers: apiKey !== null ? { authorization: `Bearer ${apiKey}` } : {},
        signal: AbortSignal.any(signals),
      });
    } catch (err) {
      const reason = (err as Error).name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : networkReason(err);
      throw new SttError(`the speech-to-text service at ${new URL(url).host} could not be reached (${reason})`);
    }
    const body: unknown = await response.json().catch(() => undefined);
    if (!response.ok) {
      throw new SttError(`the speech-to-text service answered HTTP ${response.status}${serviceMessage(body)}`, response.status);
    }
    const parsed = transcriptionSchema.safeParse(body);
    if (!parsed.success) throw new SttError("the speech-to-text service answered without a transcript");
    return parsed.data.text.trim();
  }
}

/** fetch says only "fetch failed"; the cause has the system error code or undici's reason. */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === "string") return cause.code;
  return typeof cause?.message === "string" ? cause.message : (err as Error).name;
}

/** The service's own error message, shortened: it helps fix a wrong model name or a quota. */
function serviceMessage(body: unknown): string {
  const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
  return typeof message === "string" && message !== "" ? `: ${message.slice(0, 200)}` : "";
}
