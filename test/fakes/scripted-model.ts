/**
 * A scripted model that behaves the way tool-calling models do, for the fake LLM server: for each user message
 * it has a plan (the tool calls it means to make, then its answer), followed by the rule of scriptedModel below.
 * The conversations (a reminder, "send me that file", a skill's script, a web page, a browser click-through, a
 * delegated sub-task, a greeting) are scripted here, shared by the round-trip tests and `npm run bench tokens`.
 */
import { toolResultsOf, type FakeReply, type FakeRequest, type FakeResponder } from "./openai-server.js";

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

/** A greeting: no tool at all, what every chat starts with. */
export const GREETING: ScriptedConversation = { name: "a plain hi", turns: [{ text: "hi", calls: [], answer: "Hello! How can I help?" }] };

/** A sub-task handed to another agent (delegate_task; the bench registers a stand-in with this input). */
export const DELEGATION: ScriptedConversation = {
  name: "a delegated sub-task",
  turns: [
    {
      text: "Compare three tea shops near the office and tell me which one to try",
      calls: [{ name: "delegate_task", arguments: { task: "Compare three tea shops near the office; recommend one", context: "The user likes green tea." } }],
      answer: "Try the one on Elm Street: best green tea, and the quietest.",
    },
  ],
};

/** A web page read with web_fetch, and one clicked through in the browser, both on `site` (a URL ending in /). */
export function webConversations(site: string): ScriptedConversation[] {
  return [
    {
      name: "a web fetch",
      turns: [
        {
          text: `What does ${site}news.html say?`,
          calls: [{ name: "web_fetch", arguments: { url: `${site}news.html` } }],
          answer: "It says the tea shop opens a second branch.",
        },
      ],
    },
    {
      name: "a browser click-through",
      turns: [
        {
          text: `Open ${site} in the browser, click "More" and tell me what the next page says`,
          calls: [
            { name: "browser_navigate", arguments: { url: site } },
            { name: "browser_click", arguments: { selector: "text=More" } },
            { name: "browser_get_content", arguments: {} },
          ],
          answer: "The next page says the tea shop opens a second branch.",
        },
      ],
    },
  ];
}

/**
 * Answers each request of `conversation` as the scripted model would, in either wire shape (OpenAI-compatible or
 * Anthropic). Which turn a request belongs to is read from the number of user messages in it (tool results are not
 * user messages); how far the turn got, from the tool calls after its user message.
 *
 * The rule: the next planned tool is called directly only when the request showed that tool's parameters: in the
 * tools array with a schema, or in a tool result that carries its definition or signature (get_tool_info's answer,
 * or the family's signatures that come with it). Otherwise the model first asks get_tool_info for it, as a careful
 * model does.
 */
export function scriptedModel(conversation: ScriptedConversation): FakeResponder {
  return (request: FakeRequest): FakeReply => {
    const messages = request.body.messages ?? [];
    const userIndexes = messages.flatMap((m, i) => (isUserTurn(m) ? [i] : []));
    const turn = conversation.turns[userIndexes.length - 1];
    if (!turn) return { text: "(the script has no turn for this request)" };
    const calledNames = messages.slice(userIndexes.at(-1)).flatMap(toolCallNamesOf);
    const next = turn.calls.find((call) => !calledNames.includes(call.name));
    if (!next) return { text: turn.answer };
    if (parametersShown(request, next.name)) return { toolCalls: [next] };
    return { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: next.name } }] };
  };
}

type WireMessage = Record<string, unknown> & { role: string };

/** A user message that is not only tool results (Anthropic sends those as user messages). */
function isUserTurn(message: WireMessage): boolean {
  if (message.role !== "user") return false;
  if (!Array.isArray(message.content)) return true;
  return (message.content as Array<{ type?: string }>).some((block) => block.type !== "tool_result");
}

function toolCallNamesOf(message: WireMessage): string[] {
  if (message.role !== "assistant") return [];
  if (Array.isArray(message.tool_calls)) return (message.tool_calls as Array<{ function: { name: string } }>).map((call) => call.function.name);
  if (!Array.isArray(message.content)) return [];
  return (message.content as Array<{ type?: string; name?: string }>).flatMap((block) => (block.type === "tool_use" && block.name ? [block.name] : []));
}

/** Whether the request showed the parameters of `name` (see scriptedModel). */
export function parametersShown(request: FakeRequest, name: string): boolean {
  const sent = (request.body.tools ?? []).find((t) => (t.function?.name ?? t.name) === name) as
    | { function?: { parameters?: { properties?: object } }; input_schema?: { properties?: object } }
    | undefined;
  if (sent && (sent.function?.parameters ?? sent.input_schema)?.properties) return true;
  return toolResultsOf(request).some(({ content }) => definitionsIn(content).includes(name));
}

/**
 * Names of the tool definitions in a tool result, at any depth: an object with a name and its schema, or a
 * signature, `name(parameters)`, anywhere in a text.
 */
function definitionsIn(value: unknown): string[] {
  if (typeof value === "string") {
    if (value.startsWith("{") || value.startsWith("[")) return definitionsIn(parseJson(value));
    return [...value.matchAll(/(?:^|[\s,])([a-z][a-z0-9_]*)\(/gm)].map((signature) => signature[1]!);
  }
  if (Array.isArray(value)) return value.flatMap(definitionsIn);
  if (typeof value !== "object" || value === null) return [];
  const record = value as Record<string, unknown>;
  const own = typeof record.name === "string" && (record.inputSchema ?? record.parameters) ? [record.name] : [];
  return [...own, ...Object.values(record).flatMap(definitionsIn)];
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
