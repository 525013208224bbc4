/**
 * The `agents` and `routing` sections. `agents` holds one entry per agent id beside its own two settings
 * (maxParallelDelegations and the helpers' bounds); `routing` is the ordered list of rules that send chats to agents.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { z } from "zod";
import { DEFAULT_AGENT_ID, type AgentProfile } from "../core/agents.js";

const AGENT_ID = /^[a-z][a-z0-9_-]{0,31}$/;
const names = z.array(z.string().min(1)).nullable().default(null);

export const agentEntrySchema = z
  .strictObject({
    name: z.string().min(1).nullable().default(null),
    prompt: z.string().min(1).nullable().default(null),
    /** Read at start, relative to the data dir unless absolute. */
    promptFile: z.string().min(1).nullable().default(null),
    model: z.string().min(1).nullable().default(null),
    tools: names,
    skills: names,
    mcpServers: names,
    memory: z.enum(["person", "agent", "shared"]).default("person"),
    liveReply: z.boolean().nullable().default(null),
    language: z.string().min(1).nullable().default(null),
    maxDelegationDepth: z.number().int().min(0).max(5).default(1),
  })
  .refine((agent) => agent.prompt === null || agent.promptFile === null, { message: "set prompt or promptFile, not both" });

export type AgentEntry = z.output<typeof agentEntrySchema>;

/** The section's own settings; every other key is an agent id. */
const OWN_SETTINGS = {
  maxParallelDelegations: z.number().int().min(1).max(16).default(3),
  /** A helper's turn stops after this many model steps... */
  delegationMaxSteps: z.number().int().min(1).max(50).default(6),
  /** ...or after the step that used this many tokens (input and output, all its steps together). */
  delegationMaxTokens: z.number().int().min(1_000).default(40_000),
  /** The history a helper keeps of its earlier tasks for the same conversation. */
  delegationHistoryTokens: z.number().int().min(1_000).default(4_000),
};

export const agentsConfigSchema = z
  .object(OWN_SETTINGS)
  .catchall(agentEntrySchema)
  .superRefine((section, ctx) => {
    for (const id of agentIds(section)) {
      if (!AGENT_ID.test(id)) ctx.addIssue({ code: "custom", path: [id], message: "an agent id is lower-case letters, digits, - and _, starting with a letter" });
    }
  })
  .prefault({});

export type AgentsConfig = z.output<typeof agentsConfigSchema>;

/** The configured agents' ids (the section's own settings are not agents). */
export function agentIds(section: Record<string, unknown>): string[] {
  return Object.keys(section).filter((key) => !(key in OWN_SETTINGS));
}

export function agentEntries(section: AgentsConfig): Array<[string, AgentEntry]> {
  return agentIds(section).map((id) => [id, section[id] as AgentEntry]);
}

const idOrList = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

export const routeMatchSchema = z.strictObject({
  channel: idOrList.optional(),
  /** A Discord guild, a Slack workspace. */
  space: idOrList.optional(),
  chat: idOrList.optional(),
  chatKind: z.enum(["direct", "group"]).optional(),
  thread: idOrList.optional(),
  user: idOrList.optional(),
});

export const routeRuleSchema = z.strictObject({
  match: routeMatchSchema.prefault({}),
  agent: z.string().min(1),
  /** Whether /agent may switch a chat this rule matches: to any agent (true) or to those listed. */
  allowSwitch: z.union([z.boolean(), z.array(z.string().min(1))]).default(false),
});

export type RouteRule = z.output<typeof routeRuleSchema>;
export type RouteMatch = RouteRule["match"];

export const routingConfigSchema = z.array(routeRuleSchema).default([]);

/** Rules and entries that name agents that are not configured, worded like the loader's problems. */
export function routingProblems(rules: readonly RouteRule[], known: ReadonlySet<string>, path = "routing"): string[] {
  const problems: string[] = [];
  const knownList = [...known].join(", ");
  rules.forEach((rule, index) => {
    if (!known.has(rule.agent)) problems.push(`${path}.${index}.agent = "${rule.agent}": no such agent (known: ${knownList})`);
    if (Array.isArray(rule.allowSwitch)) {
      for (const id of rule.allowSwitch.filter((id) => !known.has(id))) problems.push(`${path}.${index}.allowSwitch: "${id}" is no agent (known: ${knownList})`);
    }
  });
  return problems;
}

/** The profiles of the configured agents, `default` always among them; reads prompt files (throws naming the file). */
export function agentProfiles(section: AgentsConfig, dataDir: string): Map<string, AgentProfile> {
  const entries = agentEntries(section);
  if (!entries.some(([id]) => id === DEFAULT_AGENT_ID)) entries.push([DEFAULT_AGENT_ID, agentEntrySchema.parse({})]);
  return new Map(entries.map(([id, entry]) => [id, profileOf(id, entry, dataDir)]));
}

function profileOf(id: string, entry: AgentEntry, dataDir: string): AgentProfile {
  const { promptFile, prompt, ...rest } = entry;
  return { id, ...rest, prompt: promptFile === null ? prompt : readPromptFile(id, promptFile, dataDir) };
}

function readPromptFile(id: string, file: string, dataDir: string): string {
  const path = isAbsolute(file) ? file : resolve(dataDir, file);
  try {
    return readFileSync(path, "utf8").trim();
  } catch (err) {
    throw new Error(`agents.${id}.promptFile: cannot read ${path}: ${(err as Error).message}`);
  }
}
