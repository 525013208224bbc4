/**
 * The `tts` section (the speech provider) and the `voice` section (when the bot answers with speech). Every field
 * has a default: without tts.baseUrl (and without provider espeak-ng) the bot does not speak, and says so once at start.
 */
import { z } from "zod";

export const TTS_FORMATS = ["opus", "mp3", "aac", "flac", "wav"] as const;
const TTS_PROVIDERS = ["openai-compatible", "espeak-ng"] as const;

export const ttsConfigSchema = z
  .strictObject({
    /**
     * openai-compatible: any endpoint that answers POST {baseUrl}/audio/speech as OpenAI's does (off without
     * baseUrl); espeak-ng: the local espeak-ng program, free and offline (baseUrl, apiKey, model, format unused).
     */
    provider: z.enum(TTS_PROVIDERS).default("openai-compatible"),
    /** The endpoint (…/v1); null = no speech. */
    baseUrl: z.url({ protocol: /^https?$/ }).nullable().default(null),
    apiKey: z.string().min(1).nullable().default(null),
    model: z.string().min(1).default("tts-1"),
    /**
     * The endpoint's voice (default alloy), or espeak-ng's voice or language ("en-us", "cmn", "zh-CN", "de"; default:
     * the person's language).
     */
    voice: z.string().min(1).nullable().default(null),
    /** What the endpoint is asked for; anything but opus is converted with ffmpeg before it goes out as a voice note. */
    format: z.enum(TTS_FORMATS).default("opus"),
    speed: z.number().min(0.25).max(4).default(1),
    timeoutMs: z.number().int().positive().default(60_000),
    /** The espeak-ng program, for provider espeak-ng. */
    espeakPath: z.string().min(1).default("espeak-ng"),
  })
  .prefault({});
export type TtsConfig = z.infer<typeof ttsConfigSchema>;

export const VOICE_MODES = ["off", "mirror", "always"] as const;
export type VoiceMode = (typeof VOICE_MODES)[number];

export const voiceConfigSchema = z
  .strictObject({
    /** off: never; mirror: a voice message gets a voice reply; always: every reply is spoken. Per chat: /voice. */
    reply: z.enum(VOICE_MODES).default("mirror"),
    /** Characters of speech per voice message (about a minute); a longer answer is spoken in several. */
    maxPartChars: z.number().int().min(100).max(4096).default(1000),
    /** At most this many voice messages per reply; the rest is left to the text. */
    maxParts: z.number().int().min(1).max(20).default(4),
  })
  .prefault({});
export type VoiceConfig = z.infer<typeof voiceConfigSchema>;
