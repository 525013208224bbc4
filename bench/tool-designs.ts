/**
 * The two designs the tools bench compares with the one in the code, rebuilt from a real conversation's
 * requests: which tools went with each request, what the system prompt held, and the extra get_tool_info round
 * trips the older design needed. Token counts use a real tokenizer (o200k_base, gpt-tokenizer).
 */
import { countTokens } from "gpt-tokenizer";
import type { ToolCatalog } from "../src/handlers/catalog.js";
import type { HandlerRegistry } from "../src/handlers/registry.js";
import type { FakeRequest } from "../test/fakes/openai-server.js";

export type Design = "today" | "compact" | "picked";

export const DESIGN_LABELS: Record<Design, string> = {
  today: "before: catalog in prompt, schemas on disclosure",
  compact: "compact schemas of every permitted tool, always",
  picked: "picked: compact schemas always, stable prompt first",
};

type Message = Record<string, unknown> & { role: string };
type ToolJson = { type: "function"; function: { name: string; description: string; parameters: object } };

/** One model request as the design would send it. */
interface DesignRequest {
  tools: ToolJson[];
  system: string;
  /** The part of the prompt (tools, then system) that is byte-identical on every request of the session. */
  stablePrefix: { tools: ToolJson[]; system: string } | null;
  messages: Message[];
}

export interface DesignMeasure {
  roundTrips: number;
  promptTokens: number[];
  stableTokens: number;
}

// What the design before this one always sent with its full schema, and what get_skill_info disclosed with it.
const ALWAYS_LOADED = ["get_tool_info", "list_skills", "get_skill_info"];
const SKILL_DISCLOSES = ["get_skill_reference", "run_skill_script", "run_skill"];
const VOLATILE_HEADING = "\n\n## Runtime\n";

export interface Recorded {
  requests: FakeRequest[];
  registry: HandlerRegistry;
  catalog: ToolCatalog;
}

/** Rebuilds the requests of `design` from the recorded (picked design) ones and measures them. */
export function measureDesign(design: Design, recorded: Recorded): DesignMeasure {
  const requests = rebuild(design, recorded);
  const stable = requests[0]?.stablePrefix;
  const same = requests.every((r) => JSON.stringify(r.stablePrefix) === JSON.stringify(stable));
  return {
    roundTrips: requests.length,
    promptTokens: requests.map(tokensOf),
    stableTokens: stable && same ? countTokens(JSON.stringify(stable.tools)) + countTokens(stable.system) : 0,
  };
}

function tokensOf(request: DesignRequest): number {
  return countTokens(JSON.stringify(request.tools)) + countTokens(request.system) + countTokens(JSON.stringify(request.messages));
}

function rebuild(design: Design, recorded: Recorded): DesignRequest[] {
  const last = recorded.requests.at(-1);
  if (!last) return [];
  const sentTools = (last.body.tools ?? []) as ToolJson[];
  const systems = recorded.requests.map(systemText);
  const all = (last.body.messages ?? []).filter((m) => m.role !== "system");
  const disclosed = new Set(ALWAYS_LOADED);
  const out: Message[] = [];
  const requests: DesignRequest[] = [];
  const emit = (): void => {
    const turn = out.filter((m) => m.role === "user").length;
    const system = systems.find((_, i) => userCount(recorded.requests[i]!) === turn) ?? systems[0] ?? "";
    requests.push(requestFor(design, { sentTools, system, disclosed, recorded }, [...out]));
  };
  for (const message of all) {
    if (message.role === "assistant") {
      for (const name of toolCallNames(message)) {
        if (design !== "today" || disclosed.has(name)) continue;
        // The older design: the tool is callable only after get_tool_info, one more round trip.
        emit();
        out.push(...disclosureMessages(name, recorded.catalog.info(name), requests.length));
        disclosed.add(name);
      }
      emit();
      if (toolCallNames(message).includes("get_skill_info")) for (const name of SKILL_DISCLOSES) disclosed.add(name);
    }
    out.push(message);
  }
  emit();
  return requests;
}

interface RequestContext {
  sentTools: ToolJson[];
  system: string;
  disclosed: ReadonlySet<string>;
  recorded: Recorded;
}

function requestFor(design: Design, ctx: RequestContext, messages: Message[]): DesignRequest {
  if (design === "picked") {
    const stable = ctx.system.split(VOLATILE_HEADING)[0] ?? "";
    return { tools: ctx.sentTools, system: ctx.system, stablePrefix: { tools: ctx.sentTools, system: stable }, messages };
  }
  const names = ctx.sentTools.map((t) => t.function.name);
  const system = olderPrompt(ctx.system, catalogOf(names, ctx.recorded.registry));
  const identity = system.split("\n\n## ")[0] ?? "";
  if (design === "compact") return { tools: ctx.sentTools, system, stablePrefix: { tools: ctx.sentTools, system: identity }, messages };
  const tools = names.filter((name) => ctx.disclosed.has(name)).map((name) => fullTool(name, ctx.recorded));
  return { tools, system, stablePrefix: { tools, system: identity }, messages };
}

/**
 * The prompt as the older design ordered it: identity, runtime (with the time), the level-1 tool catalog, skills,
 * MCP, memory, tool guide, principles. Built from this design's sections, so only order and the catalog differ.
 */
function olderPrompt(system: string, catalog: string): string {
  const sections = new Map(
    system.split(/\n\n(?=## )/).map((section) => [section.slice(3, section.indexOf("\n")), section] as const),
  );
  const get = (title: string): string => sections.get(title) ?? "";
  return [
    get("Identity"),
    `${get("This Chat").replace("## This Chat", "## Runtime")}\n${get("Runtime").replace("## Runtime\n\n", "")}`,
    `## Available System Tools\n\n${catalog}`,
    `${get("Available Skills")}\n\n${get("Equipped Skills").replace("## Equipped Skills\n\n", "")}`,
    get("MCP Servers"),
    get("Memory"),
    get("Tool Guide"),
    get("Principles"),
  ].join("\n\n");
}

function catalogOf(names: readonly string[], registry: HandlerRegistry): string {
  const byCategory = new Map<string, string[]>();
  for (const tool of registry.listTools().filter((t) => names.includes(t.name))) {
    byCategory.set(tool.category, [...(byCategory.get(tool.category) ?? []), `- ${tool.name}: ${tool.shortDescription}`]);
  }
  return [...byCategory].map(([category, lines]) => `### ${category}\n${lines.join("\n")}`).join("\n\n");
}

function fullTool(name: string, recorded: Recorded): ToolJson {
  const definition = recorded.registry.getTool(name);
  return {
    type: "function",
    function: { name, description: definition?.description ?? "", parameters: recorded.catalog.jsonSchema(name) },
  };
}

function systemText(request: FakeRequest): string {
  const first = (request.body.messages ?? []).find((m) => m.role === "system");
  return typeof first?.content === "string" ? first.content : "";
}

function userCount(request: FakeRequest): number {
  return (request.body.messages ?? []).filter((m) => m.role === "user").length;
}

function toolCallNames(message: Message): string[] {
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Array<{ function: { name: string } }>) : [];
  return calls.map((call) => call.function.name);
}

/** The get_tool_info call and its result that the older design needed before a tool's first use. */
function disclosureMessages(name: string, info: unknown, index: number): Message[] {
  const id = `call_disclose_${index}`;
  const call = { id, type: "function", function: { name: "get_tool_info", arguments: JSON.stringify({ tool_name: name }) } };
  return [
    { role: "assistant", content: "", tool_calls: [call] },
    { role: "tool", tool_call_id: id, content: JSON.stringify(info) },
  ];
}
