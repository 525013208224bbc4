/**
 * A scripted model that behaves the way tool-calling models do, for the fake LLM server: for each user message
 * it has a plan (the tool calls it means to make, then its answer). It calls a planned tool directly when the
 * request carries that tool, and otherwise first asks get_tool_info for it, as a model told to disclose tools
 * would. The three conversations of issue 13 (a reminder, "send me that file", a skill's script) are scripted
 * here, shared by the round-trip tests and `npm run bench`.
 */
import { toolNamesOf, type FakeReply, type FakeRequest, type FakeResponder } from "./openai-server.js";

export interface PlannedCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface ScriptedTurn {
  /** What the user writes. */
  text: string;
  /** The calls the model makes for it, in order, before answering. */
  calls: PlannedCall[];
  answer: string;
}

export interface ScriptedConversation {
  name: string;
  turns: ScriptedTurn[];
}

export const CONVERSATIONS: readonly ScriptedConversation[] = [
  {
    name: "a reminder by message",
    turns: [
      {
        text: "Remind me to drink water in 10 minutes",
        calls: [{ name: "schedule_task", arguments: { name: "drink water", message: "Time to drink water!", when: { in: "10m" } } }],
        answer: "Done: I will remind you to drink water in 10 minutes.",
      },
    ],
  },
  {
    name: "send me that file",
    turns: [
      {
        text: "Write a short report on our Q3 numbers to report.md",
        calls: [{ name: "write_file", arguments: { path: "report.md", content: "# Q3\n\nRevenue up 12%, costs flat.\n" } }],
        answer: "I wrote the report to report.md.",
      },
      {
        text: "send me that file",
        calls: [{ name: "deliver_artifacts", arguments: { artifacts: [{ type: "file", path: "report.md", caption: "Your report" }] } }],
        answer: "Sent report.md.",
      },
    ],
  },
  {
    name: "run a skill's script",
    turns: [
      {
        text: "What time is it in Tokyo?",
        calls: [
          { name: "get_skill_info", arguments: { skill_name: "date-helper" } },
          { name: "run_skill_script", arguments: { skill_name: "date-helper", script_name: "datetime.mjs", args: ["now", "Asia/Tokyo"] } },
        ],
        answer: "It is evening in Tokyo.",
      },
    ],
  },
];

/**
 * Answers each request of `conversation` as the scripted model would. Which turn a request belongs to is read
 * from the number of user messages in it; how far the turn got, from the tool calls after its user message.
 */
export function scriptedModel(conversation: ScriptedConversation): FakeResponder {
  return (request: FakeRequest): FakeReply => {
    const messages = request.body.messages ?? [];
    const users = messages.filter((m) => m.role === "user").length;
    const turn = conversation.turns[users - 1];
    if (!turn) return { text: "(the script has no turn for this request)" };
    const lastUser = messages.map((m) => m.role).lastIndexOf("user");
    const calledNames = messages
      .slice(lastUser)
      .flatMap((m) => (Array.isArray(m.tool_calls) ? (m.tool_calls as Array<{ function: { name: string } }>) : []))
      .map((call) => call.function.name);
    const next = turn.calls.find((call) => !calledNames.includes(call.name));
    if (!next) return { text: turn.answer };
    const justDisclosed = calledNames.at(-1) === "get_tool_info";
    if (toolNamesOf(request).includes(next.name) || justDisclosed) return { toolCalls: [next] };
    // Not sent: a model told to disclose tools first asks for the definition.
    return { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: next.name } }] };
  };
}
