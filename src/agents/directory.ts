/**
 * The agents of a gateway and the routing between them: which agent answers a message (the chat's own choice made
 * with /agent where its rule allows one, else the rule's agent, else `default`), the choices a chat has, and the
 * routing rules, which an owner may replace from the console (kept in the store, over the configured ones).
 */
import { DEFAULT_AGENT_ID, type AgentChoice, type AgentDirectory, type AgentProfile } from "../core/agents.js";
import type { InboundMessage } from "../core/types.js";
import type { Namespace, Store } from "../infra/store/types.js";
import { routingProblems, routingConfigSchema, type RouteRule } from "./config.js";
import { firstMatchingRule } from "./routing.js";

const RULES_KEY = "routing";

/** What `/agent <id>` came to: the agent now answering, or why not (the chat's agent is fixed, or no such agent). */
export type SwitchResult = { ok: true; agent: AgentProfile } | { ok: false; refusal: "fixed" } | { ok: false; refusal: "unknown"; choices: string[] };

/** A routing change the console asked for that names unknown agents or is malformed; nothing was changed. */
export class RoutingError extends Error {
  override name = "RoutingError";
}

export class Agents implements AgentDirectory {
  private readonly choices: Namespace<string>;
  private readonly stored: Namespace<RouteRule[]>;
  private rules: readonly RouteRule[];

  constructor(
    private readonly profiles: ReadonlyMap<string, AgentProfile>,
    private readonly configuredRules: readonly RouteRule[],
    store: Store,
    readonly maxParallelDelegations: number,
  ) {
    this.rules = configuredRules;
    this.choices = store.namespace<string>("agents");
    this.stored = store.namespace<RouteRule[]>("agents");
  }

  /** Takes the rules an owner saved in the console, when they still name only configured agents. */
  async load(): Promise<{ problems: string[] }> {
    const saved = await this.stored.get(RULES_KEY);
    if (saved === undefined) return { problems: [] };
    const parsed = routingConfigSchema.safeParse(saved);
    const problems = parsed.success ? routingProblems(parsed.data, this.known(), "saved routing") : [parsed.error.message];
    if (parsed.success && problems.length === 0) this.rules = parsed.data;
    return { problems };
  }

  list(): AgentProfile[] {
    return [...this.profiles.values()];
  }

  profile(id: string): AgentProfile | undefined {
    return this.profiles.get(id);
  }

  routing(): { rules: readonly RouteRule[]; configured: readonly RouteRule[] } {
    return { rules: this.rules, configured: this.configuredRules };
  }

  /** Replaces the rules (null: back to the configured ones); throws a RoutingError and changes nothing when invalid. */
  async setRouting(input: unknown): Promise<readonly RouteRule[]> {
    if (input === null) {
      await this.stored.delete(RULES_KEY);
      this.rules = this.configuredRules;
      return this.rules;
    }
    const parsed = routingConfigSchema.safeParse(input);
    if (!parsed.success) throw new RoutingError(`routing: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    const problems = routingProblems(parsed.data, this.known());
    if (problems.length > 0) throw new RoutingError(problems.join("; "));
    await this.stored.set(RULES_KEY, parsed.data);
    this.rules = parsed.data;
    return this.rules;
  }

  async choose(message: InboundMessage): Promise<AgentChoice> {
    const rule = firstMatchingRule(this.rules, message);
    const routed = this.profileOrDefault(rule?.agent);
    const switchable = rule ? this.switchableUnder(rule) : [];
    if (switchable.length === 0) return { agent: routed, switchable };
    const chosen = await this.choices.get(choiceKey(message));
    const agent = switchable.find((profile) => profile.id === chosen) ?? routed;
    return { agent, switchable };
  }

  /**
   * Switches the chat of `message` to `agentId`; the refusal says why when its rule allows no such choice: the
   * routing fixes the agent, or `agentId` is not one of the `choices`.
   */
  async switchTo(message: InboundMessage, agentId: string): Promise<SwitchResult> {
    const { switchable } = await this.choose(message);
    if (switchable.length === 0) return { ok: false, refusal: "fixed" };
    const agent = switchable.find((profile) => profile.id === agentId);
    if (!agent) return { ok: false, refusal: "unknown", choices: switchable.map((p) => p.id) };
    await this.choices.set(choiceKey(message), agent.id);
    return { ok: true, agent };
  }

  private switchableUnder(rule: RouteRule): AgentProfile[] {
    if (rule.allowSwitch === false) return [];
    const ids = rule.allowSwitch === true ? [...this.profiles.keys()] : [rule.agent, ...rule.allowSwitch.filter((id) => id !== rule.agent)];
    return ids.flatMap((id) => this.profiles.get(id) ?? []);
  }

  private profileOrDefault(id: string | undefined): AgentProfile {
    // The loader and setRouting refuse rules naming unknown agents, and `default` always exists.
    return this.profiles.get(id ?? DEFAULT_AGENT_ID) ?? (this.profiles.get(DEFAULT_AGENT_ID) as AgentProfile);
  }

  private known(): Set<string> {
    return new Set(this.profiles.keys());
  }
}

/** A chat's choice holds for its thread when it has one: topics of one group may each have their agent. */
function choiceKey(message: InboundMessage): string {
  const thread = message.chat.threadId === undefined ? "" : `:thread:${message.chat.threadId}`;
  return `choice:${message.channel}:${message.chat.id}${thread}`;
}
