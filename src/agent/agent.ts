/**
 * One agent turn: load the session, add the user's message, keep the history within budget, run the model with
 * the tool loop, save what it said and did, and return the reply. The router runs one turn per session at a time.
 * A failing model never throws out of here: the user gets an apology with an error id that the log also holds.
 */
import { generateText, type LanguageModel, type ModelMessage } from "ai";
import type { InboundMessage } from "../core/types.js";
import type { CoreConfig } from "../infra/config/core-schema.js";
import type { ToolCatalog } from "../handlers/catalog.js";
import type { HandlerRegistry } from "../handlers/registry.js";
import { messageToolContext, permits, type ToolContext, type ToolDefinition } from "../core/tools.js";
import type { Logger } from "../infra/log.js";
import type { ThinkingSettings} from "../sessions/thinking.js";
import { reasoningProviderOptions, type ProviderOptions } from "../sessions/thinking.js";
import type { TurnLog, TurnLogEntry } from "../sessions/turn-log.js";
import { modelLatency, modelTokens } from "../infra/metrics.js";
import { compactIfNeeded } from "./compaction.js";
import type { SessionHistory} from "../sessions/history.js";
import { estimateTokens, type SessionRecord } from "../sessions/history.js";
import { describeLlmError } from "./llm.js";
import { answeredBy, ModelChain } from "./model-chain.js";
import type { ModelState } from "./model-health.js";
import { modelEntries, primaryEntry, type ModelEntry } from "../infra/config/model-entries.js";
import type { ProposedMemory, TurnRecall } from "../core/memory-port.js";
import type { TurnHooks } from "../core/turn-hooks.js";
import { buildSystemPrompt, turnNotes } from "./prompt.js";
import { exposedToolsModel, toolCatalogText, toolExposure } from "./exposure.js";
import { toolCallRepairer, TurnToolSets, type TurnToolState } from "./tools.js";
import { refusalWordsModel } from "./refusal-words.js";
import type { TurnInput, TurnResult } from "../core/turn.js";
import { buildUserMessage, withNotes } from "./user-message.js";
import { watchedModel } from "./stream.js";
import { withHistoryPrompt } from "./wire/index.js";
import { randomHex } from "../core/ids.js";
import { BudgetRefusal } from "../core/usage-port.js";
import { meteredModel, type MeteredCalls } from "./metered-model.js";
import { modelTelemetry } from "../infra/tracing.js";
import { ENGLISH } from "../infra/i18n/index.js";
import { agentOffers, DEFAULT_AGENT_ID, defaultAgentProfile, type AgentProfile } from "../core/agents.js";
import { resolveAgentModel } from "../agents/models.js";
import { generationReply, internalFailureReply, isModelFailure, lastAnswerText, llmFailureReply, type Generation } from "./turn-replies.js";
import { historyMessages, startProgress, turnLogEntry, withNotices, type TurnProgress } from "./turn-progress.js";
import { stopConditions, systemFor } from "./turn-request.js";

export interface AgentDeps extends TurnHooks {
  config: CoreConfig;
  /** The configured secret values, kept out of tool results and replies. */
  secrets: readonly string[];
  model: LanguageModel;
  registry: HandlerRegistry;
  catalog: ToolCatalog;
  /** The sessions' transcripts, turn logs and reasoning settings, shared with the tools and the console. */
  history: SessionHistory;
  turnLog: TurnLog;
  thinking: ThinkingSettings;
  log: Logger;
  /** The sender's time zone (set with /timezone), so the local time in a turn's notes is theirs; default agent.timezone. */
  timezoneOf?: (message: InboundMessage) => Promise<string | undefined>;
  now?: () => Date;
}

export interface SessionInfo {
  messages: number;
  estimatedTokens: number;
  summarized: boolean;
  disclosedTools: string[];
}

export class Agent {
  private readonly history: SessionHistory;
  private readonly turnLog: TurnLog;
  private readonly thinking: ThinkingSettings;
  private readonly secrets: readonly string[];
  private readonly toolSets: TurnToolSets;
  /** How the latest model call ended, for /readyz; null before the first turn. */
  lastModelCall: { ok: boolean; at: Date; errorId?: string } | null = null;
  private readonly now: () => Date;
  /** The entry tried first: its provider shapes the system prompt, its vision and reasoning settings the request. */
  private readonly primary: ModelEntry;

  constructor(private readonly deps: AgentDeps) {
    ({ history: this.history, turnLog: this.turnLog, thinking: this.thinking } = deps);
    const primary = primaryEntry(deps.config.llm);
    if (!primary) throw new Error("The agent needs a configured language model");
    this.primary = primary;
    this.secrets = deps.secrets;
    this.now = deps.now ?? (() => new Date());
    this.toolSets = new TurnToolSets(deps.registry, deps.catalog, deps.secrets);
  }

  /** Resolves with the reply; rejects only when input.signal aborts (an Error named "AbortError"). */
  async runTurn(input: TurnInput): Promise<TurnResult> {
    const { log } = input;
    throwIfAborted(input.signal);
    const progress = startProgress(this.now());
    try {
      return await this.turn(input, progress, log);
    } catch (err) {
      if (input.signal.aborted) {
        await this.saveUnfinished(progress, input, log, {});
        throw abortError();
      }
      if (err instanceof BudgetRefusal) return this.stopForBudget(err, progress, input, log);
      return this.failTurn(err, progress, input, log);
    }
  }

  /** Each model entry's state (cooling down, credentials refused, last call), for /status, /readyz and the console. */
  modelStates(): ModelState[] {
    return this.deps.model instanceof ModelChain ? this.deps.model.health.states() : [];
  }

  async resetSession(sessionKey: string): Promise<void> {
    await this.history.reset(sessionKey);
    await this.turnLog.reset(sessionKey);
  }

  async sessionInfo(sessionKey: string): Promise<SessionInfo> {
    const record = await this.history.load(sessionKey);
    return {
      messages: record.messages.length,
      estimatedTokens: estimateTokens(record),
      summarized: record.summary !== null,
      disclosedTools: record.disclosedTools,
    };
  }

  private async turn(input: TurnInput, progress: TurnProgress, log: Logger): Promise<TurnResult> {
    const agent = this.profileOf(input);
    // The loader checked the agent's model name; a model that is not a chain (in tests) is taken as it is.
    const chain = this.deps.model;
    const model: LanguageModel = chain instanceof ModelChain ? resolveAgentModel(agent.model, chain, this.deps.config.llm) : chain;
    const refusal = await this.deps.usage?.refusal(ownerOf(input), input.speech);
    if (refusal !== undefined) {
      log.info("turn not started: a budget is spent");
      await this.logTurn(input, progress, { outcome: "budget" }, log);
      return { text: refusal, steps: 0, toolCalls: [] };
    }
    const metered = this.meteredCalls(input, progress, log);
    const media = await this.deps.prepareMedia?.(input, log);
    const user = await buildUserMessage(input.message, {
      vision: this.primary.vision,
      download: media?.download ?? input.download,
      transcripts: media?.transcripts,
      log,
      earlier: input.earlierMessages ?? [],
    });
    const loaded = await this.history.load(input.sessionKey);
    loaded.messages.push(user.forHistory);
    // Saved with the reply in one append (or by failTurn, or when the turn is stopped), not on its own first.
    progress.record = loaded;
    const record = await this.compact(loaded, { input, agent, model, metered }, log);
    // After compaction, so that memories it proposed are recalled in this turn; compaction keeps the last message.
    const notes = turnNotes({
      message: input.message,
      now: this.now(),
      timezone: (await this.deps.timezoneOf?.(input.message)) ?? this.deps.config.agent.timezone,
      recall: await this.recall(input.message, agent, log),
      ...(input.speech ? { language: input.speech.locale } : {}),
    });
    record.messages[record.messages.length - 1] = withNotes(user.forHistory, notes);
    progress.record = record;
    const { disclosedTools } = progress;
    for (const name of record.disclosedTools) disclosedTools.add(name);

    const endModelTimer = modelLatency.startTimer({ provider: this.primary.provider, model: this.primary.model });
    const result = await this.generate(record, withNotes(user.forModel, notes), { input, agent, model, metered }, progress, log);
    endModelTimer();
    this.lastModelCall = { ok: true, at: new Date() };
    for (const step of result.steps) countTokens(this.entryLabels(answeredBy(step.providerMetadata)), step.usage);
    const reply = generationReply(result, input, input.delegation?.maxSteps ?? this.deps.config.llm.maxSteps, this.secrets);
    record.messages.push(...historyMessages(result.response.messages, progress));
    // The user saw this notice; the model should know it too when asked to continue.
    if (reply.stepLimit) record.messages.push({ role: "assistant", content: reply.text });
    record.disclosedTools = [...disclosedTools];
    await this.history.save(input.sessionKey, record, input.fence);

    const durationMs = Math.round(performance.now() - progress.started);
    const { steps, toolCalls } = progress;
    log.info({ steps, toolCalls, durationMs, usage: result.totalUsage }, "turn finished");
    await this.logTurn(input, progress, { outcome: reply.stepLimit ? "step_limit" : "answered" }, log);
    log.debug({ reply: reply.text }, "turn reply");
    return { text: withNotices(reply.text, progress), steps, toolCalls, ...(reply.stepLimit ? { stepLimit: true } : {}) };
  }

  /** The usage port's view of this turn's model calls; undefined without budgets and accounting. */
  private meteredCalls(input: TurnInput, progress: TurnProgress, log: Logger): MeteredCalls | undefined {
    const port = this.deps.usage;
    if (!port) return undefined;
    return { port, owner: ownerOf(input), log, ...(input.speech ? { speech: input.speech } : {}), onNotice: (text) => void progress.notices.push(text) };
  }

  private async compact(record: SessionRecord, turn: TurnSetup, log: Logger): Promise<SessionRecord> {
    const { input, agent } = turn;
    const { llm } = this.deps.config;
    const keepProposals = this.deps.memory?.keepProposals?.bind(this.deps.memory);
    const proposals: ProposedMemory[] = [];
    const compacted = await compactIfNeeded(record, {
      model: meteredModel(turn.model, "compaction", turn.metered),
      budget: input.delegation?.historyTokenBudget ?? llm.historyTokenBudget,
      maxRetries: llm.maxRetries,
      signal: input.signal,
      log,
      ...(keepProposals ? { onProposals: (found: ProposedMemory[]) => void proposals.push(...found) } : {}),
    });
    if (compacted === null) return record;
    await this.history.save(input.sessionKey, compacted, input.fence);
    if (keepProposals && proposals.length > 0) {
      await keepProposals(input.message, proposals, log, agent).catch((err: unknown) => log.warn({ err }, "keeping the memories compaction proposed failed"));
    }
    return compacted;
  }

  private async generate(
    record: SessionRecord,
    userMessage: ModelMessage,
    turn: TurnSetup,
    progress: TurnProgress,
    log: Logger,
  ): Promise<Generation> {
    const { input, agent } = turn;
    const { config, registry, catalog } = this.deps;
    const allowTool = input.allowTool ?? (() => true);
    const permitted = (tool: ToolDefinition): boolean =>
      allowTool(tool) && permits(input.permissions, tool.risk) && agentOffers(agent, tool.name, registry.handlerOf(tool.name));
    const context = this.toolContext(input, agent, log, progress);
    const allowed = registry.listTools().filter(permitted);
    const exposure = toolExposure(allowed, record.disclosedTools, record.summary !== null);
    const turnState: TurnToolState = { context, calls: progress.calls, refusals: progress.refusals };
    const prompt = buildSystemPrompt({
      agent: config.agent,
      profile: agent,
      ...(input.delegation ? { delegationDepth: input.delegation.depth } : {}),
      message: input.message,
      toolCatalog: toolCatalogText(exposure.listed),
      skillsCatalog: this.deps.skillsCatalog?.(agent.skills),
      equippedSkills: await this.deps.equippedSkills?.(input.sessionKey),
      mcpServers: this.deps.mcpSection?.(input.permissions, agent.mcpServers),
      summary: record.summary,
    });
    const providerOptions = await this.reasoningOptions(input.sessionKey);
    // The same steps whether or not someone watches; a watched turn's model streams each step to the watcher.
    const watched = input.onEvent ? watchedModel(turn.model, this.secrets, input.onEvent, input.speech) : turn.model;
    // Inside the history's splice, so a call is admitted and estimated with its whole prompt.
    const model = meteredModel(watched, input.work ?? "chat", turn.metered);
    // The stored user message (the last one) has placeholders; this turn's request carries the images.
    const history = withHistoryPrompt(model, record.messages.slice(0, -1), userMessage);
    return generateText({
      model: exposedToolsModel(refusalWordsModel(history.model, progress.refusals), exposure.sent),
      system: systemFor(this.primary.provider, prompt),
      messages: history.messages,
      // Every permitted tool can be called; exposedToolsModel sends the definitions of the exposed ones.
      tools: this.toolSets.toolsFor(allowed),
      experimental_context: turnState,
      experimental_repairToolCall: toolCallRepairer({ ...turnState, catalog, allowed, secrets: this.secrets }),
      stopWhen: stopConditions(config.llm.maxSteps, input),
      experimental_telemetry: modelTelemetry("chat-turn"),
      maxRetries: config.llm.maxRetries,
      ...(config.llm.maxOutputTokens !== null ? { maxOutputTokens: config.llm.maxOutputTokens } : {}),
      ...(providerOptions ? { providerOptions } : {}),
      abortSignal: input.signal,
      onStepFinish: (step) => {
        progress.steps += 1;
        progress.toolCalls.push(...step.toolCalls.map((call) => call.toolName));
        progress.stepMessages = step.response.messages;
      },
    });
  }

  /** A model call's metric labels: the entry that answered, else the primary. */
  private entryLabels(name: string | undefined): { provider: string; model: string } {
    const entry = (name === undefined ? undefined : modelEntries(this.deps.config.llm).find((candidate) => candidate.name === name)) ?? this.primary;
    return { provider: entry.provider, model: entry.model };
  }

  /** The profile of the agent the turn is for; a task or a rule naming an agent no longer configured is an error. */
  private profileOf(input: TurnInput): AgentProfile {
    const id = input.agentId ?? DEFAULT_AGENT_ID;
    const profile = this.deps.agents ? this.deps.agents.profile(id) : id === DEFAULT_AGENT_ID ? defaultAgentProfile() : undefined;
    if (!profile) throw new Error(`The agent "${id}" is not configured (agents.${id}); the turn cannot run`);
    return profile;
  }

  /** The turn's tool context: its chat and sender, the agent, and the live reply's status line for helpers. */
  private toolContext(input: TurnInput, agent: AgentProfile, log: Logger, progress: TurnProgress): ToolContext {
    const { onEvent } = input;
    return {
      ...messageToolContext(input, log, progress.disclosedTools),
      agent,
      delegationDepth: input.delegation?.depth ?? 0,
      ...(onEvent ? { showStatus: (text: string) => onEvent({ type: "status", text }) } : {}),
      addNotice: (text) => void progress.notices.push(text),
    };
  }

  /** The provider's reasoning option when the session turned thinking on and the model can reason. */
  private async reasoningOptions(sessionKey: string): Promise<ProviderOptions | undefined> {
    if (!this.primary.reasoning) return undefined;
    const setting = await this.thinking.get(sessionKey);
    if (!setting.enabled) return undefined;
    // Each provider reads its own key: every reasoning entry of the chain gets its option.
    const providers = new Set(modelEntries(this.deps.config.llm).filter((entry) => entry.reasoning).map((entry) => entry.provider));
    return Object.assign({}, ...[...providers].map((provider) => reasoningProviderOptions(provider, setting.level))) as ProviderOptions;
  }

  /** Records the turn for get_session_logs; a store failure is logged, never the turn's failure. */
  private async logTurn(
    input: TurnInput,
    progress: TurnProgress,
    result: Pick<TurnLogEntry, "outcome" | "errorId">,
    log: Logger,
  ): Promise<void> {
    await this.turnLog.append(input.sessionKey, turnLogEntry(input, progress, result)).catch((err: unknown) => {
      log.error({ err }, "could not record the turn in the session log");
    });
  }

  /** A memory store that fails costs the turn its memories, not its answer. */
  private async recall(message: InboundMessage, agent: AgentProfile, log: Logger): Promise<TurnRecall | undefined> {
    try {
      return await this.deps.memory?.recall(message, log, agent);
    } catch (err) {
      log.warn({ err }, "recalling memories failed; the turn goes on without them");
      return undefined;
    }
  }

  /** Saves the user's message and the steps that did finish, of a turn that failed or was stopped. */
  private async saveUnfinished(progress: TurnProgress, input: TurnInput, log: Logger, context: { errorId?: string }): Promise<void> {
    const { record, stepMessages } = progress;
    if (!record) return;
    record.messages.push(...historyMessages(stepMessages, progress));
    record.disclosedTools = [...progress.disclosedTools];
    await this.history.save(input.sessionKey, record, input.fence).catch((saveErr: unknown) => {
      log.error({ ...context, err: saveErr }, "could not save the finished steps of an unfinished turn");
    });
  }

  /**
   * A budget ran out between two model calls: the steps that finished stay, and the person is told the limit and
   * when it resets, after what the turn had already answered.
   */
  private async stopForBudget(refusal: BudgetRefusal, progress: TurnProgress, input: TurnInput, log: Logger): Promise<TurnResult> {
    log.info({ steps: progress.steps }, "turn stopped: a budget is spent");
    await this.saveUnfinished(progress, input, log, {});
    await this.logTurn(input, progress, { outcome: "budget" }, log);
    const answered = lastAnswerText(progress.stepMessages, this.secrets);
    const text = answered === "" ? refusal.message : `${answered}\n\n${refusal.message}`;
    return { text: withNotices(text, progress), steps: progress.steps, toolCalls: progress.toolCalls };
  }

  /** The apology for a turn that could not finish; the steps that did finish stay in the history. */
  private async failTurn(err: unknown, progress: TurnProgress, input: TurnInput, log: Logger): Promise<TurnResult> {
    const errorId = randomHex(8);
    const fromModel = isModelFailure(err);
    if (fromModel) this.lastModelCall = { ok: false, at: new Date(), errorId };
    log.error(
      { errorId, err: fromModel ? describeLlmError(err) : err, steps: progress.steps },
      fromModel ? "turn failed: no answer from the language model" : "turn failed",
    );
    await this.saveUnfinished(progress, input, log, { errorId });
    await this.logTurn(input, progress, { outcome: "failed", errorId }, log);
    const speech = input.speech ?? ENGLISH;
    const text = fromModel ? llmFailureReply(errorId, speech) : internalFailureReply(errorId, speech);
    return { text, errorId, steps: progress.steps, toolCalls: progress.toolCalls };
  }
}

function countTokens(labels: { provider: string; model: string }, usage: { inputTokens?: number | undefined; outputTokens?: number | undefined }): void {
  if (usage.inputTokens) modelTokens.inc({ ...labels, kind: "input" }, usage.inputTokens);
  if (usage.outputTokens) modelTokens.inc({ ...labels, kind: "output" }, usage.outputTokens);
}

/** Who answers and with which model: settled at the start of the turn. */
interface TurnSetup {
  input: TurnInput;
  agent: AgentProfile;
  model: LanguageModel;
  /** The usage port's view of the turn's model calls; undefined without budgets and accounting. */
  metered: MeteredCalls | undefined;
}

function ownerOf(input: TurnInput): { channel: string; userId: string; chatId: string } {
  return { channel: input.message.channel, userId: input.message.sender.id, chatId: input.message.chat.id };
}

function abortError(): Error {
  const err = new Error("The turn was cancelled");
  err.name = "AbortError";
  return err;
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw abortError();
}
