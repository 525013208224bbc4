/** /voice on|off|mirror: whether this chat's replies are spoken (on = every reply, mirror = answers to voice notes). */
import type { ChatCommand } from "../core/commands.js";
import type { VoiceMode } from "./config.js";
import type { VoicePreferences } from "./preferences.js";

const MODES: Readonly<Record<string, VoiceMode>> = { on: "always", off: "off", mirror: "mirror" };
const DESCRIBED: Readonly<Record<VoiceMode, string>> = {
  always: "every reply here comes as a voice message too",
  off: "replies here are text only",
  mirror: "a voice message here gets a voice reply; text gets text",
};

export function voiceCommand(preferences: VoicePreferences, speaks: boolean): ChatCommand {
  return {
    name: "voice",
    summary: "spoken replies in this chat: on, off or mirror",
    usage: "on|off|mirror",
    menu: "everyone",
    async run(args, ctx) {
      const { channel, chat } = ctx.message;
      const word = args.trim().toLowerCase();
      const unavailable = speaks ? "" : " (no speech provider is set up, so nothing is spoken yet)";
      if (word === "") return `Voice replies: ${DESCRIBED[await preferences.modeOf(channel, chat.id)]}${unavailable}. Change with /voice on, /voice off or /voice mirror.`;
      const mode = MODES[word];
      if (!mode) return `Unknown choice "${word.slice(0, 40)}": use /voice on, /voice off or /voice mirror.`;
      await preferences.set(channel, chat.id, mode);
      return `Done: ${DESCRIBED[mode]}${unavailable}.`;
    },
  };
}
