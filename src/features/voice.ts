/**
 * The bot speaks: after a turn's text reply, a spoken rendition as native voice messages when the chat's /voice
 * mode asks for it (mirror: a voice message gets one), or instead of the text for a person who turned the text off
 * (when all of it is read aloud; the text goes if speaking fails), and the send_voice tool. Speech comes from the `tts`
 * section's provider (an endpoint or espeak-ng); the files go out through media's delivery (ffmpeg conversion, receipts).
 */
import { randomHex } from "../core/ids.js";
import type { SentReply } from "../core/reply-hook.js";
import { messageToolContext, ToolError, type ToolContext } from "../core/tools.js";
import { createVoiceHandler } from "../handlers/voice.js";
import type { Deliverer, DeliverResult } from "../media/deliver.js";
import { voiceCommand } from "../voice/command.js";
import { ttsConfigSchema, voiceConfigSchema, type TtsConfig } from "../voice/config.js";
import { VoicePreferences } from "../voice/preferences.js";
import { speechProviderOf } from "../voice/providers.js";
import { Speaker } from "../voice/speaker.js";
import { defineFeature, mediaDelivererOf } from "./module.js";

export const voiceFeature = defineFeature({
  name: "voice",
  configSchema: voiceConfigSchema,
  reads: ["tts"],
  create: (deps) => {
    const tts = (deps.sections.tts as TtsConfig | undefined) ?? ttsConfigSchema.parse({});
    const preferences = new VoicePreferences(deps.store, deps.settings.reply);
    const provider = speechProviderOf(tts);
    const speaker = provider === null ? null : new Speaker(provider, deps.settings);
    if (!speaker) deps.log.info("replies will not be spoken: no speech provider (set tts.baseUrl, or tts.provider espeak-ng)");
    const deliverer = mediaDelivererOf(deps);
    if (!deliverer) throw new Error("The voice feature sends through the media feature, which must come before it in the list");
    const say = (text: string, ctx: ToolContext): Promise<DeliverResult> => {
      if (!speaker) throw new ToolError("No speech provider is set up (tts.baseUrl, or tts.provider espeak-ng), so nothing can be spoken", "failed");
      return speakAndDeliver(speaker, deliverer, speaker.partsOf(text).parts, ctx, ctx.speech?.locale ?? ctx.message?.locale).catch((err: unknown) => {
        if (err instanceof ToolError || ctx.signal.aborted) throw err;
        throw new ToolError(`Could not speak: ${(err as Error).message}`, "failed");
      });
    };
    /**
     * How a reply is spoken: not at all, instead of its text (all of it read aloud, the person asked for no text),
     * or after it; with the parts to speak. Decided once per reply: both hooks ask for the same reply.
     */
    const plans = new WeakMap<SentReply, Promise<SpeakingPlan>>();
    const planFor = async (reply: SentReply): Promise<SpeakingPlan> => {
      if (!speaker || !(await preferences.shouldSpeak(reply.message))) return { how: "no", parts: [] };
      const { channel, sender } = reply.message;
      const { parts, whole } = speaker.partsOf(reply.text);
      return { how: !(await preferences.wantsText(channel, sender.id)) && whole ? "instead" : "after", parts };
    };
    const speakingOf = (reply: SentReply): Promise<SpeakingPlan> => {
      const plan = plans.get(reply) ?? planFor(reply);
      plans.set(reply, plan);
      return plan;
    };
    const speakReply = async (reply: SentReply, plan: SpeakingPlan): Promise<boolean> => {
      const ctx = messageToolContext(reply, reply.log);
      try {
        await speakAndDeliver(speaker!, deliverer, plan.parts, ctx, reply.locale);
        return true;
      } catch (err) {
        if (ctx.signal.aborted) return false;
        // The one line that says why no voice came (and, instead of it, the text).
        const msg = plan.how === "instead" ? "the reply was not spoken; it goes as text instead" : "the reply was not spoken; it went as text only";
        reply.log.warn({ err: (err as Error).message, endpoint: speaker!.name }, msg);
        return false;
      }
    };
    return {
      handlers: speaker ? [createVoiceHandler({ say })] : [],
      commands: [voiceCommand(preferences, speaker !== null)],
      replyInstead: async (reply: SentReply) => {
        const plan = await speakingOf(reply);
        return plan.how === "instead" && speakReply(reply, plan);
      },
      afterReply: async (reply: SentReply) => {
        const plan = await speakingOf(reply);
        if (plan.how === "after") await speakReply(reply, plan);
      },
    };
  },
});

interface SpeakingPlan {
  how: "no" | "instead" | "after";
  parts: string[];
}

/** The parts of a text worth hearing (Speaker.partsOf), synthesized and delivered as voice messages, one receipt each. */
async function speakAndDeliver(speaker: Speaker, deliverer: Deliverer, parts: readonly string[], ctx: ToolContext, language: string | undefined): Promise<DeliverResult> {
  if (parts.length === 0) return { ok: true, receipts: [], note: "Nothing in the text is read aloud (only code, tables or links)." };
  const files = await speaker.speak(parts, { workspaceDir: ctx.workspaceDir, stem: `speech-${randomHex(6)}`, signal: ctx.signal, language });
  // Each rendition is its own message, even when the same words were spoken before.
  const artifacts = files.map((file) => ({ type: "voice" as const, path: file.path, dedupe_key: `voice:${file.path}` }));
  return deliverer.deliver({ artifacts }, ctx);
}
