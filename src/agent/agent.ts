/**
 * One agent turn: load the session, add the user's message, keep the history within budget, run the model with
 * the tool loop, save what it said and did, and return the reply. The router runs one turn per session at a time.
 * A failing model never throws out of here: the user gets an apology with an error id that the log also holds.
 */
import { randomBytes } from "node:crypto";
import { AISDKError, stepCountIs, streamText, type LanguageModel, type ModelMessage } from "ai";
import type { InboundMessage } from "../core/types.js";
import type { CoreConfig } from "../infra/config/core-schema.js";
import { redactText } from "../infra/config/secrets.js";
import type { ToolCatalog } from "../handlers/catalog.js";
import type { HandlerRegistry } from "../handlers/registry.js";
import { permits, type ToolContext, type ToolDefinition } from "../core/tools.js";
import type { Logger } from "../infra/log.js";
import type { Store } from "../infra/store/types.js";
import { compactIfNeeded } from "./compaction.js";
import { SessionHistory, estimateTokens, type SessionRecord } from "../sessions/history.js";
import { describeLlmError } from "./llm.js";
import { buildSystemPrompt } from "./prompt.js";
import { buildTurnTools } from "./tools.js";
import type { PreparedMedia, TurnInput, TurnResult } from "../core/turn.js";
import { buildUserMessage } from "./user-message.js";
import { readStream, type StreamedGeneration } from "./stream.js";

export interface AgentDeps {
  config: CoreConfig;
  /** The configured secret values, kept out of tool results and replies. */
  secrets: readonly string[];
  model: LanguageModel;
  registry: HandlerRegistry;
  catalog: ToolCatalog;
  store: Store;
  log: Logger;
  skillsCatalog?: () => string;
  /** The instructions of the skills a session equipped, for its system prompt. */
  equippedSkills?: (sessionKey: string) => Promise<string>;
  /** Downloads and transcribes the message's media before the turn (src/im); without it images download directly. */
  prepareMedia?: (input: TurnInput, log: Logger) => Promise<PreparedMedia>;
  /** The sender's time zone (set with /timezone), so "today" in the prompt is theirs; default agent.timezone. */
  timezoneOf?: (message: InboundMessage) => Promise<string | undefined>;
  now?: () => Date;
}

export interface SessionInfo {
  messages: number;
  estimatedTokens: number;
  summarized: boolean;
  disclosedTools: string[];
}

export function llmFailureReply(errorId: string): string {
  return `Sorry, I could not get an answer from the language model right now (error id ${errorId}). Please try again.`;
}

export function stepLimitReply(maxSteps: number): string {
  return `I stopped after ${maxSteps} steps without finishing. Tell me to continue if you want me to go on.`;
}

export function internalFailureReply(errorId: string): string {
  return `Sorry, something went wrong on my side (error id ${errorId}). Please try again.`;
}

export const EMPTY_ANSWER_REPLY = "The language model returned an empty answer. Please rephrase or try again.";

export class Agent {
  private readonly history: SessionHistory;
  private readonly secrets: readonly string[];
  private readonly now: () => Date;

  constructor(private readonly deps: AgentDeps) {
    this.history = new SessionHistory(deps.store, deps.log);
    this.secrets = deps.secrets;
    this.now = deps.now ?? (() => new Date());
  }

  /** Resolves with the reply; rejects only when input.signal aborts (an Error named "AbortError"). */
  async runTurn(input: TurnInput): Promise<TurnResult> {
    const log = input.log.child({ traceId: input.traceId, sessionKey: input.sessionKey });
    throwIfAborted(input.signal);
    const progress: TurnProgress = {
      record: undefined,
      disclosedTools: new Set(),
      steps: 0,
      toolCalls: [],
      stepMessages: [],
    };
    try {
      return await this.turn(input, progress, log);
    } catch (err) {
      if (input.signal.aborted) throw abortError();
      return this.failTurn(err, progress, input, log);
    }
  }

  async resetSession(sessionKey: string): Promise<void> {
    await this.history.reset(sessionKey);
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
    const started = performance.now();
    const { llm } = this.deps.config;
    const media = await this.deps.prepareMedia?.(input, log);
    const user = await buildUserMessage(input.message, {
      vision: llm.vision,
      download: media?.download ?? input.download,
      transcripts: media?.transcripts,
      log,
      earlier: input.earlierMessages ?? [],
    });
    const loaded = await this.history.load(input.sessionKey);
    loaded.messages.push(user.forHistory);
    await this.history.save(input.sessionKey, loaded);
    const record = await this.compact(loaded, input, log);
    progress.record = record;
    const { disclosedTools } = progress;
    for (const name of record.disclosedTools) disclosedTools.add(name);

    const result = await this.generate(record, user.forModel, input, progress, log);
    const reply = this.replyText(result);
    record.messages.push(...result.response.messages);
    // The user saw this notice; the model should know it too when asked to continue.
    if (reply.stepLimit) record.messages.push({ role: "assistant", content: reply.text });
    record.disclosedTools = [...disclosedTools];
    await this.history.save(input.sessionKey, record);

    const durationMs = Math.round(performance.now() - started);
    const { steps, toolCalls } = progress;
    log.info({ steps, toolCalls, durationMs, usage: result.totalUsage }, "turn finished");
    log.debug({ reply: reply.text }, "turn reply");
    return { text: reply.text, steps, toolCalls };
  }

  private async compact(record: SessionRecord, input: TurnInput, log: Logger): Promise<SessionRecord> {
    const { llm } = this.deps.config;
    const compacted = await compactIfNeeded(record, {
      model: this.deps.model,
      budget: llm.historyTokenBudget,
      maxRetries: llm.maxRetries,
      signal: input.signal,
      log,
    });
    if (compacted === null) return record;
    await this.history.save(input.sessionKey, compacted);
    return compacted;
  }

  private async generate(
    record: SessionRecord,
    userMessage: ModelMessage,
    input: TurnInput,
    progress: TurnProgress,
    log: Logger,
  ): Promise<StreamedGeneration> {
    const { config, registry, catalog } = this.deps;
    const allowTool = input.allowTool ?? (() => true);
    const permitted = (tool: ToolDefinition): boolean => allowTool(tool) && permits(input.permissions, tool.risk);
    const context = toolContext(input, progress.disclosedTools, log);
    const { tools, activeTools } = buildTurnTools({
      registry,
      catalog,
      allowed: registry.listTools().filter(permitted),
      context,
      secrets: this.secrets,
    });
    const system = buildSystemPrompt({
      agent: config.agent,
      message: input.message,
      now: this.now(),
      timezone: await this.deps.timezoneOf?.(input.message),
      toolCatalog: catalog.render(permitted),
      skillsCatalog: this.deps.skillsCatalog?.(),
      equippedSkills: await this.deps.equippedSkills?.(input.sessionKey),
      summary: record.summary,
    });
    // The stored user message (the last one) has placeholders; this turn's request carries the images.
    const messages = [...record.messages.slice(0, -1), userMessage];
    // Streamed even when nobody watches, so a watched and an unwatched turn produce the very same reply.
    const stream = streamText({
      model: this.deps.model,
      system,
      messages,
      tools,
      activeTools: activeTools(),
      // get_tool_info adds to disclosedTools during a step; the next step sends the newly disclosed schemas.
      prepareStep: () => ({ activeTools: activeTools() }),
      stopWhen: stepCountIs(config.llm.maxSteps),
      maxRetries: config.llm.maxRetries,
      ...(config.llm.maxOutputTokens !== null ? { maxOutputTokens: config.llm.maxOutputTokens } : {}),
      abortSignal: input.signal,
      // The stream's error part is thrown by readStream and logged once by failTurn (the default prints it).
      onError: () => {},
      onStepFinish: (step) => {
        progress.steps += 1;
        progress.toolCalls.push(...step.toolCalls.map((call) => call.toolName));
        progress.stepMessages = step.response.messages;
      },
    });
    return readStream(stream, this.secrets, input.onEvent);
  }

  private replyText(result: StreamedGeneration): { text: string; stepLimit: boolean } {
    const { maxSteps } = this.deps.config.llm;
    const stoppedMidTask = result.finishReason === "tool-calls" && result.steps.length >= maxSteps;
    if (stoppedMidTask) return { text: stepLimitReply(maxSteps), stepLimit: true };
    const text = redactText(result.text.trim(), this.secrets);
    return { text: text === "" ? EMPTY_ANSWER_REPLY : text, stepLimit: false };
  }

  /** The apology for a turn that could not finish; the steps that did finish stay in the history. */
  private async failTurn(err: unknown, progress: TurnProgress, input: TurnInput, log: Logger): Promise<TurnResult> {
    const errorId = randomBytes(4).toString("hex");
    const fromModel = isModelFailure(err);
    log.error(
      { errorId, err: fromModel ? describeLlmError(err) : err, steps: progress.steps },
      fromModel ? "turn failed: no answer from the language model" : "turn failed",
    );
    const { record, stepMessages } = progress;
    if (record && stepMessages.length > 0) {
      record.messages.push(...stepMessages);
      record.disclosedTools = [...progress.disclosedTools];
      await this.history.save(input.sessionKey, record).catch((saveErr: unknown) => {
        log.error({ errorId, err: saveErr }, "could not save the finished steps of a failed turn");
      });
    }
    const text = fromModel ? llmFailureReply(errorId) : internalFailureReply(errorId);
    return { text, errorId, steps: progress.steps, toolCalls: progress.toolCalls };
  }
}

/** What a turn has done so far, kept outside the try so a failure can still save it. */
interface TurnProgress {
  /** The session record once loaded (and compacted). */
  record: SessionRecord | undefined;
  /** The record's disclosed tools, plus those get_tool_info disclosed in this turn. */
  disclosedTools: Set<string>;
  steps: number;
  toolCalls: string[];
  /** The response messages of the finished steps. */
  stepMessages: ModelMessage[];
}

/** Errors of the model call itself (HTTP, timeout, bad response), as opposed to our own bugs or the store. */
function isModelFailure(err: unknown): boolean {
  // The timeout of llm.ts's fetch is a DOMException named TimeoutError (an Error in Node).
  return AISDKError.isInstance(err) || (err instanceof Error && err.name === "TimeoutError");
}

function toolContext(input: TurnInput, disclosedTools: Set<string>, log: Logger): ToolContext {
  const { message } = input;
  return {
    sessionKey: input.sessionKey,
    channel: message.channel,
    chatId: message.chat.id,
    chatType: message.chat.type,
    senderId: message.sender.id,
    message,
    workspaceDir: input.workspaceDir,
    signal: input.signal,
    log,
    traceId: input.traceId,
    disclosedTools,
    ...(input.permissions ? { permissions: input.permissions } : {}),
  };
}

function abortError(): Error {
  const err = new Error("The turn was cancelled");
  err.name = "AbortError";
  return err;
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw abortError();
}
