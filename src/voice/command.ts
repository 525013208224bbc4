/**
 * /voice on|off|mirror: whether this chat's replies are spoken (on = every reply, mirror = answers to voice notes);
 * /voice text off|on: whether the sender's spoken replies come with their text.
 */
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
    usage: "on|off|mirror, or text on|off",
    menu: "everyone",
    async run(args, ctx) {
      const { channel, chat, sender } = ctx.message;
      const word = args.trim().toLowerCase().replace(/\s+/g, " ");
      const unavailable = speaks ? "" : " (no speech provider is set up, so nothing is spoken yet)";
      if (word === "") {
        const mode = DESCRIBED[await preferences.modeOf(channel, chat.id)];
        const text = (await preferences.wantsText(channel, sender.id)) ? "with their text" : "without their text (when all of it is spoken)";
        return `Voice replies: ${mode}${unavailable}; yours come ${text}. Change with /voice on, /voice off or /voice mirror, and /voice text off or /voice text on.`;
      }
      const textChoice = /^text (on|off)$/.exec(word)?.[1];
      if (textChoice) {
        await preferences.setWantsText(channel, sender.id, textChoice === "on");
        return textChoice === "on"
          ? "Done: your spoken replies come with their text."
          : "Done: your spoken replies come without their text, unless something in it is not read aloud (code, tables, links) or speaking fails.";
      }
      const mode = MODES[word];
      if (!mode) return `Unknown choice "${word.slice(0, 40)}": use /voice on, /voice off, /voice mirror, /voice text off or /voice text on.`;
      await preferences.set(channel, chat.id, mode);
      return `Done: ${DESCRIBED[mode]}${unavailable}.`;
    },
  };
}
