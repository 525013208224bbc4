/**
 * The `media` section of the configuration: inbound downloads and their clean-up, outbound delivery, voice
 * conversion and speech-to-text. Every field has a default, so `media: {}` is a working setup.
 */
import { z } from "zod";

const bytes = z.number().int().positive();
const duration = z.number().int().positive();

export const sttConfigSchema = z
  .strictObject({
    /** Transcribe voice and audio messages before the turn, so the model can answer them directly. */
    enabled: z.boolean().default(true),
    /** An OpenAI-compatible endpoint (…/v1); null = the LLM endpoint when the provider is openai-compatible. */
    baseUrl: z.url({ protocol: /^https?$/ }).nullable().default(null),
    /** null = the LLM's key, but only when baseUrl is null too: the key never goes to another host unasked. */
    apiKey: z.string().min(1).nullable().default(null),
    model: z.string().min(1).default("whisper-1"),
    /** ISO-639-1 hint such as "en" or "zh"; null lets the service detect it. */
    language: z.string().regex(/^[a-z]{2}$/, "expected a two-letter language code such as en").nullable().default(null),
    timeoutMs: duration.default(60_000),
  })
  .prefault({});

export const mediaConfigSchema = z
  .strictObject({
    /** Largest attachment downloaded from a chat; the platform's own limit applies as well. */
    maxDownloadBytes: bytes.default(25 * 1_048_576),
    /** Downloaded attachments (the workspace's inbox/ folder) are deleted after this many hours. */
    retentionHours: z.number().positive().default(24),
    /** How long one upload may take before its receipt says "timeout" (it may still arrive). */
    sendTimeoutMs: duration.default(120_000),
    /** How long a delivered artifact is remembered to skip sending the same one again, in hours. */
    dedupTtlHours: z.number().positive().default(30 * 24),
    /** The ffmpeg binary that converts voice messages; without it they are sent as audio files. */
    ffmpegPath: z.string().min(1).default("ffmpeg"),
    stt: sttConfigSchema,
  })
  .prefault({});

export type MediaConfig = z.output<typeof mediaConfigSchema>;
export type SttConfig = z.output<typeof sttConfigSchema>;
