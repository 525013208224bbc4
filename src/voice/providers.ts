/** The speech provider tts.provider names, or null when the bot does not speak (openai-compatible without baseUrl). */
import type { TtsConfig } from "./config.js";
import { EspeakSpeech } from "./espeak.js";
import { SpeechClient, type SpeechProvider } from "./speech.js";

export function speechProviderOf(tts: TtsConfig): SpeechProvider | null {
  if (tts.provider === "espeak-ng") return new EspeakSpeech(tts);
  return tts.baseUrl === null ? null : new SpeechClient({ ...tts, baseUrl: tts.baseUrl });
}
