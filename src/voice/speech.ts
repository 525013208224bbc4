/**
 * Text to speech through an OpenAI-compatible POST {baseUrl}/audio/speech: JSON in, the audio bytes out. Errors
 * name the endpoint's host and status; the key never appears in them.
 */
import type { TtsConfig } from "./config.js";

export interface SpeechAudio {
  data: Buffer;
  /** The file extension of the format asked for. */
  extension: string;
}

/** What turns text into audio: an endpoint or a local program. */
export interface SpeechProvider {
  /** What logs and doctor call it: the endpoint's host, or the program. */
  readonly name: string;
  /** `language` is the person's (a BCP 47 tag), for a provider that picks its voice by it. */
  synthesize(text: string, signal?: AbortSignal, language?: string): Promise<SpeechAudio>;
}

/** OpenAI's voice when tts.voice is not set. */
export const DEFAULT_VOICE = "alloy";

const EXTENSIONS: Record<TtsConfig["format"], string> = { opus: "ogg", mp3: "mp3", aac: "aac", flac: "flac", wav: "wav" };

export class SpeechClient implements SpeechProvider {
  constructor(private readonly config: TtsConfig & { baseUrl: string }) {}

  get name(): string {
    return new URL(this.config.baseUrl).host;
  }

  async synthesize(text: string, signal?: AbortSignal): Promise<SpeechAudio> {
    const { baseUrl, apiKey, model, format, speed, timeoutMs } = this.config;
    const voice = this.config.voice ?? DEFAULT_VOICE;
    const url = `${baseUrl.replace(/\/+$/, "")}/audio/speech`;
    const deadline = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify({ model, voice, input: text, response_format: format, speed }),
        signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      const reason = deadline.aborted ? `no answer within ${timeoutMs / 1000} s` : (err as Error).message;
      throw new Error(`the speech endpoint at ${this.name} could not be reached: ${reason}`);
    }
    if (!response.ok) {
      const detail = (await response.text().catch(() => "")).slice(0, 200);
      throw new Error(`the speech endpoint at ${this.name} answered HTTP ${response.status}${detail ? `: ${detail}` : ""}`);
    }
    const data = Buffer.from(await response.arrayBuffer());
    if (data.length === 0) throw new Error(`the speech endpoint at ${this.name} answered with no audio`);
    return { data, extension: EXTENSIONS[format] };
  }
}
