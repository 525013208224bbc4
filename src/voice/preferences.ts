/**
 * The per-chat choice of /voice (on = always, off, mirror), over the configured voice.reply, and the one rule of
 * when a reply is spoken.
 */
import type { InboundMessage } from "../core/types.js";
import type { Store, Namespace } from "../infra/store/types.js";
import { VOICE_MODES, type VoiceMode } from "./config.js";

export class VoicePreferences {
  private readonly ns: Namespace<VoiceMode>;

  constructor(
    store: Store,
    private readonly defaultMode: VoiceMode,
  ) {
    this.ns = store.namespace<VoiceMode>("voice");
  }

  async modeOf(channel: string, chatId: string): Promise<VoiceMode> {
    const chosen = await this.ns.get(chatKey(channel, chatId));
    return chosen !== undefined && (VOICE_MODES as readonly string[]).includes(chosen) ? chosen : this.defaultMode;
  }

  async set(channel: string, chatId: string, mode: VoiceMode): Promise<void> {
    await this.ns.set(chatKey(channel, chatId), mode);
  }

  /** mirror: a message that is (or carries) a voice note gets a spoken answer. */
  async shouldSpeak(message: InboundMessage): Promise<boolean> {
    const mode = await this.modeOf(message.channel, message.chat.id);
    if (mode === "always") return true;
    return mode === "mirror" && message.attachments.some((attachment) => attachment.kind === "voice");
  }
}

function chatKey(channel: string, chatId: string): string {
  return `chat:${channel}:${chatId}`;
}
