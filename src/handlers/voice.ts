/** send_voice: the agent chooses to answer with speech; the text is read aloud and delivered as voice messages. */
import { z } from "zod";
import { implementTool, type ToolContext, type ToolHandlerSpec } from "../core/tools.js";

export interface VoiceToolDeps {
  /** Speaks `text` into the current chat and returns the delivery receipts; throws a ToolError when it cannot. */
  say(text: string, ctx: ToolContext): Promise<unknown>;
}

export function createVoiceHandler(deps: VoiceToolDeps): ToolHandlerSpec {
  const sendVoice = implementTool(
    {
      name: "send_voice",
      category: "IM Channel",
      shortDescription: "Say something to the chat as a voice message (text to speech)",
      description: [
        "Reads `text` aloud with the configured speech provider and sends it to this chat as one or more voice",
        "messages; returns {ok, receipts} like deliver_artifacts.",
        "",
        "When to use: the user asked to hear the answer, or listening suits them better (driving, cooking). Replies",
        "to voice messages may already be spoken by the gateway (/voice); do not send the same text twice.",
        "Code, tables and links are not read aloud: keep those in your text reply.",
        "",
        'Example: send_voice({"text": "Your train leaves at 9:40 from platform 3."})',
      ].join("\n"),
      input: z.object({ text: z.string().trim().min(1).max(8000).describe("What to say, in plain words") }),
      risk: "chat",
      timeoutMs: 5 * 60_000,
    },
    (input, ctx) => deps.say(input.text, ctx),
  );
  return { name: "voice", tools: [sendVoice] };
}
