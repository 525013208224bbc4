/**
 * Turns a reply into speech files in the session's workspace: the prose read aloud (spoken.ts), cut into parts
 * that each fit one voice message, each part synthesized by the speech provider. Delivery is the caller's.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { VoiceConfig } from "./config.js";
import type { SpeechProvider } from "./speech.js";
import { speechParts, spokenText } from "./spoken.js";

/** Where speech files go, relative to the workspace. */
export const SPEECH_DIR = "voice";

export interface SpeechFile {
  /** Relative to the workspace. */
  path: string;
}

export class Speaker {
  constructor(
    private readonly provider: SpeechProvider,
    private readonly limits: Pick<VoiceConfig, "maxPartChars" | "maxParts">,
  ) {}

  /** The provider's name for logs: the endpoint's host, or the program. */
  get name(): string {
    return this.provider.name;
  }

  /**
   * The spoken parts of a markdown reply (none when nothing in it is worth reading aloud: only code, say), and
   * whether they carry all of it: nothing left out for the text alone, no part beyond maxParts.
   */
  partsOf(markdown: string): { parts: string[]; whole: boolean } {
    const spoken = spokenText(markdown);
    const parts = speechParts(spoken.text, this.limits.maxPartChars);
    return { parts: parts.slice(0, this.limits.maxParts), whole: spoken.whole && parts.length <= this.limits.maxParts };
  }

  /** Synthesizes each part into `<workspace>/voice/<stem>-<n>.<ext>`, in the person's `language` where the provider picks voices by it; throws the first failure. */
  async speak(parts: readonly string[], at: { workspaceDir: string; stem: string; signal?: AbortSignal | undefined; language?: string | undefined }): Promise<SpeechFile[]> {
    const { workspaceDir, stem, signal, language } = at;
    await mkdir(join(workspaceDir, SPEECH_DIR), { recursive: true });
    const files: SpeechFile[] = [];
    for (const [index, part] of parts.entries()) {
      const audio = await this.provider.synthesize(part, signal, language);
      const path = `${SPEECH_DIR}/${stem}-${index + 1}.${audio.extension}`;
      await writeFile(join(workspaceDir, path), audio.data);
      files.push({ path });
    }
    return files;
  }
}
