/**
 * The speech provider's settings (the `tts` section) and its doctor line. The voice feature speaks with them; the
 * section stands on its own so `tts.*` reads like `media.stt.*` does for the other direction.
 */
import { ttsConfigSchema } from "../voice/config.js";
import { espeakVoice } from "../voice/espeak.js";
import { speechProviderOf } from "../voice/providers.js";
import { DEFAULT_VOICE } from "../voice/speech.js";
import { defineFeature } from "./module.js";

/** doctor asks for one word: a tiny cost that proves the address, the key, the model and the voice (or the program). */
const DOCTOR_TIMEOUT_MS = 20_000;

export const ttsFeature = defineFeature({
  name: "tts",
  configSchema: ttsConfigSchema,
  secretPaths: ["apiKey"],
  envOverrides: {
    TTS_BASE_URL: { path: "baseUrl", type: "string" },
    TTS_API_KEY: { path: "apiKey", type: "string" },
    TTS_MODEL: { path: "model", type: "string" },
    TTS_VOICE: { path: "voice", type: "string" },
  },
  crossChecks: (settings) =>
    settings.provider === "espeak-ng" && settings.voice !== null && espeakVoice(settings.voice, undefined, "") === null
      ? [`tts.voice: "${settings.voice.slice(0, 40)}" is no espeak-ng voice; use one such as en-us, de or cmn (espeak-ng --voices lists them), or leave it unset`]
      : [],
  doctor: async (settings) => {
    const provider = speechProviderOf({ ...settings, timeoutMs: Math.min(settings.timeoutMs, DOCTOR_TIMEOUT_MS) });
    if (provider === null) return [{ name: "tts", ok: true, detail: "off (tts.baseUrl is not set, nor tts.provider espeak-ng): replies are text only" }];
    const espeak = settings.provider === "espeak-ng";
    try {
      const audio = await provider.synthesize("ok");
      const how = espeak ? `WAV (voice ${settings.voice ?? "by the person's language"})` : `${settings.format} (${settings.model}, ${settings.voice ?? DEFAULT_VOICE})`;
      return [{ name: "tts", ok: true, detail: `${provider.name} spoke ${audio.data.length} bytes of ${how}` }];
    } catch (err) {
      const fix = espeak
        ? "install espeak-ng (Debian: apt-get install espeak-ng) or set tts.espeakPath; tts.voice must be an espeak-ng voice (espeak-ng --voices)"
        : "check tts.baseUrl, tts.apiKey (TTS_API_KEY), tts.model and tts.voice";
      return [{ name: "tts", ok: false, detail: (err as Error).message, fix }];
    }
  },
});
