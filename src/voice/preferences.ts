/**
 * The per-chat choice of /voice (on = always, off, mirror), over the configured voice.reply, and the one rule of
 * when a reply is spoken; and each person's choice of /voice text off: their spoken replies come without the text.
 */
import type { InboundMessage } from "../core/types.js";
import type { Store, Namespace } from "../infra/store/types.js";
import { VOICE_MODES, type VoiceMode } from "./config.js";

export class VoicePreferences {
  private readonly ns: Namespace<VoiceMode>;
  private readonly textOff: Namespace<true>;

  constructor(
    store: Store,
    private readonly defaultMode: VoiceMode,
  ) {
    this.ns = store.namespace<VoiceMode>("voice");
    // Beside the chats' modes, under keys of their own (person:...).
    this.textOff = store.namespace<true>("voice");
  }

  async modeOf(channel: string, chatId: string): Promise<VoiceMode> {
    const chosen = await this.ns.get(chatKey(channel, chatId));
    return chosen !== undefined && (VOICE_MODES as readonly string[]).includes(chosen) ? chosen : this.defaultMode;
  }

  async set(channel: string, chatId: string, mode: VoiceMode): Promise<void> {
    await this.ns.set(chatKey(channel, chatId), mode);
  }

  /** Whether the person wants the text beside their spoken replies (the default: nothing is lost for someone who cannot listen). */
  async wantsText(channel: string, userId: string): Promise<boolean> {
    return (await this.textOff.get(personKey(channel, userId))) === undefined;
  }

  async setWantsText(channel: string, userId: string, wanted: boolean): Promise<void> {
    if (wanted) await this.textOff.delete(personKey(channel, userId));
    else await this.textOff.set(personKey(channel, userId), true);
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

function personKey(channel: string, userId: string): string {
  return `person:${channel}:${userId}`;
}
