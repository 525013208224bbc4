/**
 * The speech provider's settings (the `tts` section) and its doctor line. The voice feature speaks with them; the
 * section stands on its own so `tts.*` reads like `media.stt.*` does for the other direction.
 */
import { ttsConfigSchema } from "../voice/config.js";
import { SpeechClient } from "../voice/speech.js";
import { defineFeature } from "./module.js";

/** doctor asks for one word: a tiny cost that proves the address, the key, the model and the voice. */
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
  doctor: async (settings) => {
    const { baseUrl } = settings;
    if (baseUrl === null) return [{ name: "tts", ok: true, detail: "off (tts.baseUrl is not set): replies are text only" }];
    const client = new SpeechClient({ ...settings, baseUrl, timeoutMs: Math.min(settings.timeoutMs, DOCTOR_TIMEOUT_MS) });
    try {
      const audio = await client.synthesize("ok");
      return [{ name: "tts", ok: true, detail: `${client.host} spoke ${audio.data.length} bytes of ${settings.format} (${settings.model}, ${settings.voice})` }];
    } catch (err) {
      return [{ name: "tts", ok: false, detail: (err as Error).message, fix: "check tts.baseUrl, tts.apiKey (TTS_API_KEY), tts.model and tts.voice" }];
    }
  },
});
