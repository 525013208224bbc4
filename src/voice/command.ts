/**
 * /voice on|off|mirror: whether this chat's replies are spoken (on = every reply, mirror = answers to voice notes);
 * /voice text off|on: whether the sender's spoken replies come with their text.
 */
import type { ChatCommand } from "../core/commands.js";
import type { VoiceMode } from "./config.js";
import type { VoicePreferences } from "./preferences.js";

const MODES: Readonly<Record<string, VoiceMode>> = { on: "always", off: "off", mirror: "mirror" };

export function voiceCommand(preferences: VoicePreferences, speaks: boolean): ChatCommand {
  return {
    name: "voice",
    summary: "spoken replies in this chat: on, off or mirror",
    usage: "on|off|mirror, or text on|off",
    menu: "everyone",
    async run(args, ctx) {
      const { channel, chat, sender } = ctx.message;
      const { t } = ctx.speech;
      const word = args.trim().toLowerCase().replace(/\s+/g, " ");
      const unavailable = speaks ? "" : t("voice.unavailable");
      if (word === "") {
        const mode = t(`voice.mode.${await preferences.modeOf(channel, chat.id)}`);
        const text = t((await preferences.wantsText(channel, sender.id)) ? "voice.withText" : "voice.withoutText");
        return t("voice.current", { mode, unavailable, text });
      }
      const textChoice = /^text (on|off)$/.exec(word)?.[1];
      if (textChoice) {
        await preferences.setWantsText(channel, sender.id, textChoice === "on");
        return t(textChoice === "on" ? "voice.textOn" : "voice.textOff");
      }
      const mode = MODES[word];
      if (!mode) return t("voice.unknown", { word: word.slice(0, 40) });
      await preferences.set(channel, chat.id, mode);
      return t("voice.set", { mode: t(`voice.mode.${mode}`), unavailable });
    },
  };
}
