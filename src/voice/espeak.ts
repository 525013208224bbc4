/**
 * Text to speech with the local espeak-ng program (Debian's espeak-ng, GPL-3.0): no account, no network, robotic
 * but understandable. The text goes in on stdin, never through a shell or as an argument; the WAV it writes to
 * stdout is converted to a voice note by media's delivery, as an endpoint's MP3 is. execa is imported on first use.
 */
import type { TtsConfig } from "./config.js";
import type { SpeechAudio, SpeechProvider } from "./speech.js";

/** espeak-ng's own rate, in words per minute, which tts.speed 1 stands for; it takes 80 to 450. */
const BASE_WPM = 175;
const MIN_WPM = 80;
const MAX_WPM = 450;
/** A voice or language as espeak-ng names them: "en-us", "cmn", "de", with a variant such as "+f3". */
const VOICE_NAME = /^[a-z]{2,3}(-[a-z0-9]{1,8})*(\+[a-z0-9_-]{1,20})?$/;
/** Han characters with no kana among them: Chinese, unless the person's language is one that writes Han too. */
const HAN = /\p{Script=Han}/u;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HAN_LANGUAGES = new Set(["cmn", "yue", "ja", "ko"]);

export class EspeakSpeech implements SpeechProvider {
  readonly name = "espeak-ng";

  constructor(private readonly config: Pick<TtsConfig, "espeakPath" | "voice" | "speed" | "timeoutMs">) {}

  async synthesize(text: string, signal?: AbortSignal, language?: string): Promise<SpeechAudio> {
    const { espeakPath, speed, timeoutMs } = this.config;
    const voice = espeakVoice(this.config.voice, language, text);
    if (voice === null) throw new Error(`espeak-ng cannot take the voice "${String(this.config.voice).slice(0, 40)}" (tts.voice): use one such as en-us, cmn or de`);
    const wpm = Math.round(Math.min(MAX_WPM, Math.max(MIN_WPM, BASE_WPM * speed)));
    const { execa } = await import("execa");
    // -b 1: the input is UTF-8; --stdout: a WAV file on stdout.
    const result = await execa(espeakPath, ["-v", voice, "-s", String(wpm), "-b", "1", "--stdin", "--stdout"], {
      input: text,
      encoding: "buffer",
      timeout: timeoutMs,
      reject: false,
      ...(signal ? { cancelSignal: signal } : {}),
    });
    if (result.isCanceled && signal?.aborted) throw signal.reason;
    if (result.code === "ENOENT") throw new Error(`espeak-ng is not installed (no program at ${espeakPath}); on Debian: apt-get install espeak-ng`);
    if (result.failed) {
      const said = Buffer.from(result.stderr).toString().trim().split("\n").at(-1);
      const reason = result.timedOut ? `no audio within ${timeoutMs / 1000} s` : said || result.shortMessage;
      throw new Error(`espeak-ng could not speak with the voice ${voice}: ${reason}`);
    }
    const data = Buffer.from(result.stdout);
    // A WAV header alone is 44 bytes.
    if (data.length <= 44) throw new Error(`espeak-ng made no audio with the voice ${voice}`);
    return { data, extension: "wav" };
  }
}

/**
 * The espeak-ng voice: tts.voice when set; else Mandarin for Chinese text (a person whose language is English still
 * writes to the bot in Chinese), English for text with no Chinese characters in it, else the person's language. A Chinese tag is Mandarin ("cmn"), or
 * Cantonese ("yue") for Hong Kong and Macau. Null when tts.voice is no name espeak-ng takes.
 */
export function espeakVoice(setting: string | null, language: string | undefined, text: string): string | null {
  if (setting !== null) return voiceOfTag(setting);
  const fromLanguage = language ? voiceOfTag(language) : null;
  const writesHan = fromLanguage !== null && HAN_LANGUAGES.has(fromLanguage.split(/[-+]/)[0]!);
  const hasHan = HAN.test(text);
  if (!writesHan && hasHan && !KANA.test(text)) return "cmn";
  // A Chinese speaker's reply with no Chinese in it (the model answered in the language it was asked in) is not
  // Mandarin; Japanese and Korean are written without Han characters too, so only Chinese is checked.
  if ((fromLanguage === "cmn" || fromLanguage === "yue") && !hasHan) return "en";
  return fromLanguage ?? "en";
}

function voiceOfTag(tag: string): string | null {
  const lower = tag.trim().toLowerCase().replace(/_/g, "-");
  const [language, ...rest] = lower.split("-");
  if (language === "zh") return rest.some((part) => ["hk", "mo", "yue"].includes(part)) ? "yue" : "cmn";
  return VOICE_NAME.test(lower) ? lower : null;
}
