/**
 * The router: every inbound message of every channel comes through here. It drops redeliveries, lets the
 * access policy decide whether the message is for the bot and allowed, answers slash commands, and queues the
 * rest as agent turns, one at a time per session, then sends the reply back through the channel it came from.
 */
import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { AccessControl, Admission } from "../access/access-control.js";
import type { Agent } from "../agent/agent.js";
import type { CoreConfig } from "../infra/config/core-schema.js";
import type { Logger } from "../infra/log.js";
import type { Store } from "../infra/store/types.js";
import type { ChatCommand, CommandContext } from "../core/commands.js";
import { commandTable, helpText, parseCommand } from "./commands.js";
import { sessionKeyOf, workspaceDirOf } from "../core/session-key.js";
import { InboundDedup } from "./inbound-dedup.js";
import { LiveTurn } from "./live-turn.js";
import { acknowledgeTurn } from "./acknowledge.js";
import { SessionQueue } from "./session-queue.js";
import { targetOf, type Channel, type ChannelName, type HandleOutcome, type InboundMessage } from "../core/types.js";

export interface RouterDeps {
  config: CoreConfig;
  store: Store;
  log: Logger;
  channelOf: (name: ChannelName) => Channel | undefined;
  /** null when no LLM is configured; free-form messages then get `llmProblem` as the answer. */
  agent: Agent | null;
  llmProblem: string | null;
  /** Who may talk to the bot, with which tools, and how often. */
  access: AccessControl;
  /** Slash commands of other parts of the gateway, beside the router's own. */
  commands?: ChatCommand[];
}

/** Context of one inbound message on its way through the router. */
interface Delivery {
  message: InboundMessage;
  channel: Channel;
  sessionKey: string;
  log: Logger;
  traceId: string;
}

const TYPING_REFRESH_MS = 5_000;

export class Router {
  private readonly queue: SessionQueue;
  private readonly dedup: InboundDedup;
  private readonly workspacesRoot: string;
  private readonly startedAt = Date.now();
  private readonly commands: ChatCommand[];
  private readonly commandsByName: Map<string, ChatCommand>;
  private accepting = true;

  constructor(private readonly deps: RouterDeps) {
    this.queue = new SessionQueue(deps.config.sessions.maxConcurrent);
    const { dedupTtlHours, dedupLeaseMinutes } = deps.config.sessions;
    this.dedup = new InboundDedup(deps.store, { ttlMs: dedupTtlHours * 3_600_000, leaseMs: dedupLeaseMinutes * 60_000 });
    this.workspacesRoot = join(deps.config.dataDir, "workspaces");
    this.commands = [...this.coreCommands(), ...(deps.commands ?? [])];
    this.commandsByName = commandTable(this.commands);
  }

  /** The InboundHandler given to every channel. */
  readonly handle = async (message: InboundMessage): Promise<HandleOutcome> => {
    const traceId = randomBytes(6).toString("hex");
    const log = this.deps.log.child({ traceId, channel: message.channel, chatId: message.chat.id, messageId: message.id });
    const channel = this.deps.channelOf(message.channel);
    if (!channel) {
      log.error("message from a channel that is not running; dropped");
      return "failed";
    }
    if (!this.accepting) {
      log.info("message arrived during shutdown; deferred to the next start");
      return "deferred";
    }
    if (!(await this.dedup.claim(message.id))) {
      log.debug("duplicate delivery dropped");
      return "duplicate";
    }
    let outcome: HandleOutcome | undefined;
    try {
      outcome = await this.route(message, channel, log, traceId);
      // A turn cut short by shutdown is not the user's /stop: the message is handled again after the restart.
      if (outcome === "stopped" && !this.accepting) outcome = "deferred";
      return outcome;
    } finally {
      // A deferred message stays claimed by this ending instance, which the next start takes over.
      if (outcome !== "deferred") {
        await this.dedup.finish(message.id).catch((err: unknown) => log.error({ err }, "could not record the message as handled"));
      }
    }
  };

  private async route(message: InboundMessage, channel: Channel, log: Logger, traceId: string): Promise<HandleOutcome> {
    const reason = ignoreReason(message, channel);
    if (reason) {
      log.debug({ reason }, "message ignored");
      return "ignored";
    }
    const admission = await this.deps.access.admit(message, log);
    if (admission.kind === "drop") return admission.outcome;
    const sessionKey = sessionKeyOf(message, this.deps.config.sessions.scope);
    const delivery: Delivery = { message, channel, sessionKey, log: log.child({ sessionKey }), traceId };
    if (admission.kind === "notice") return this.notify(delivery, admission.text);
    const parsed = parseCommand(message.text, this.commandsByName);
    if (parsed) return this.runCommand(delivery, parsed.command, parsed.args);
    if (!this.deps.agent) {
      return this.replyOutcome(
        delivery,
        `I'm not connected to a language model yet: ${this.deps.llmProblem ?? "no LLM configured"}. Slash commands work: /help`,
      );
    }
    return this.enqueueTurn(delivery, this.deps.agent, admission);
  }

  /** Stops taking messages, lets running turns finish until the deadline, then cancels the rest. */
  async drain(graceMs: number): Promise<void> {
    this.accepting = false;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), graceMs)));
    const finished = await Promise.race([this.queue.idle().then(() => "idle" as const), deadline]);
    clearTimeout(timer);
    if (finished === "late") {
      this.deps.log.warn({ activeTurns: this.queue.activeTurns }, "shutdown deadline reached; cancelling running turns");
      this.queue.cancelAll();
      await this.queue.idle();
    }
  }

  private async enqueueTurn(d: Delivery, agent: Agent, admitted: Admitted): Promise<HandleOutcome> {
    const claim = this.deps.access.claimTurn(d.message, d.sessionKey, admitted.role, d.log);
    if (claim.kind === "busy") return this.notify(d, claim.notice);
    try {
      return await this.queue.run(d.sessionKey, async (signal) => {
        const stopTyping = this.keepTyping(d);
        const live = LiveTurn.open(d.channel, d.message);
        const clearAck = await acknowledgeTurn(d.channel, d.message, d.log);
        try {
          const workspaceDir = workspaceDirOf(this.workspacesRoot, d.sessionKey);
          await mkdir(workspaceDir, { recursive: true, mode: 0o700 });
          // Taken when the turn starts, so chatter that arrived while it waited in the queue is included.
          const earlierMessages = await this.deps.access.takeEarlierMessages(d.message);
          const result = await this.deps.store.coordinator.withLock(
            `session:${d.sessionKey}`,
            () =>
              agent.runTurn({
                sessionKey: d.sessionKey,
                message: d.message,
                workspaceDir,
                signal,
                log: d.log,
                traceId: d.traceId,
                download: (attachment) => d.channel.download(attachment, join(workspaceDir, "inbox")),
                permissions: admitted.permissions,
                earlierMessages,
                ...(live ? { onEvent: live.onEvent } : {}),
              }),
            { leaseMs: 60_000, waitMs: 15 * 60_000 },
          );
          // A failed turn's apology takes the place of its half-written preview.
          const outcome = await this.replyOutcome(d, result.text, live);
          return result.errorId ? "failed" : outcome;
        } catch (err) {
          await live?.cancel().catch((cancelErr: unknown) => d.log.warn({ err: cancelErr }, "could not take back the preview"));
          throw err;
        } finally {
          stopTyping();
          await clearAck();
        }
      });
    } catch (err) {
      if ((err as Error).name === "AbortError") {
        d.log.info("turn stopped");
        return "stopped";
      }
      d.log.error({ err }, "turn failed");
      return "failed";
    } finally {
      claim.release();
    }
  }

  private async runCommand(d: Delivery, command: ChatCommand, args: string): Promise<HandleOutcome> {
    d.log.info({ command: command.name }, "slash command");
    const ctx: CommandContext = { message: d.message, sessionKey: d.sessionKey, log: d.log, traceId: d.traceId };
    let text: string;
    try {
      text = await command.run(args, ctx);
    } catch (err) {
      const errorId = randomBytes(4).toString("hex");
      d.log.error({ err, errorId, command: command.name }, "slash command failed");
      text = `Sorry, /${command.name} failed (error id ${errorId}).`;
    }
    return this.replyOutcome(d, text);
  }

  private coreCommands(): ChatCommand[] {
    return [
      { name: "help", summary: "show this help", run: async () => helpText(this.deps.config.agent.name, this.commands) },
      {
        name: "new",
        aliases: ["reset"],
        summary: "start a new conversation (forget the history of this chat)",
        // Through the queue, so the reset lands after the turns that came before it.
        run: async (_args, ctx) => {
          try {
            await this.queue.run(ctx.sessionKey, async () => this.deps.agent?.resetSession(ctx.sessionKey));
            return "Started a new conversation. Earlier messages are forgotten.";
          } catch {
            return "Stopped before the conversation was reset.";
          }
        },
      },
      { name: "status", summary: "show the model, this session's size and whether a turn is running", run: (_args, ctx) => this.statusText(ctx.sessionKey) },
      {
        name: "stop",
        summary: "cancel the running turn and drop queued messages",
        run: async (_args, ctx) => {
          const { running, queued } = this.queue.cancel(ctx.sessionKey);
          const dropped = queued > 0 ? ` and dropped ${queued} queued message${queued === 1 ? "" : "s"}` : "";
          if (running) return `Stopped the running turn${dropped}.`;
          return queued > 0 ? `Dropped ${queued} queued message${queued === 1 ? "" : "s"}.` : "Nothing is running right now.";
        },
      },
    ];
  }

  private async statusText(sessionKey: string): Promise<string> {
    const { llm } = this.deps.config;
    const lines = [`Session: ${sessionKey}`];
    lines.push(this.deps.agent ? `Model: ${llm.model} (${llm.provider})` : `Model: not configured (${this.deps.llmProblem})`);
    if (this.deps.agent) {
      const info = await this.deps.agent.sessionInfo(sessionKey);
      lines.push(`History: ${info.messages} messages, about ${info.estimatedTokens} tokens${info.summarized ? ", older turns summarized" : ""}`);
    }
    const state = this.queue.state(sessionKey);
    lines.push(`Turn: ${state.running ? "running" : "idle"}${state.queued > 0 ? `, ${state.queued} queued` : ""}`);
    lines.push(`Uptime: ${Math.round((Date.now() - this.startedAt) / 1000)} s`);
    return lines.join("\n");
  }

  /** Sends `text` in reply to the message; a failed send is logged here, once, and reported as "failed". */
  private async replyOutcome(d: Delivery, text: string, live?: LiveTurn): Promise<HandleOutcome> {
    try {
      if (live) await live.finish(text);
      else await d.channel.sendText(targetOf(d.message), text, { replyTo: d.message.platformMessageId });
      return "answered";
    } catch (err) {
      d.log.error({ err }, "sending the reply failed");
      return "failed";
    }
  }

  /** Answers with a notice instead of a turn (pairing code, slow down): the message itself was refused. */
  private async notify(d: Delivery, text: string): Promise<HandleOutcome> {
    const outcome = await this.replyOutcome(d, text);
    return outcome === "answered" ? "refused" : outcome;
  }

  /** Shows "typing..." while the turn runs; platforms expire the indicator after a few seconds. */
  private keepTyping(d: Delivery): () => void {
    const typing = d.channel.typing?.bind(d.channel);
    if (!typing) return () => {};
    const target = targetOf(d.message);
    const tick = () => void typing(target).catch((err: unknown) => d.log.debug({ err }, "typing indicator failed"));
    tick();
    const timer = setInterval(tick, TYPING_REFRESH_MS);
    return () => clearInterval(timer);
  }
}

type Admitted = Extract<Admission, { kind: "admit" }>;

/** Messages the bot never answers, whoever sent them, and why; who may talk is the access policy's call. */
function ignoreReason(message: InboundMessage, channel: Channel): string | null {
  // A channel may let other bots talk to this one (its adapter then guards against reply loops).
  if (message.sender.isBot && !channel.acceptsBots) return "sent by a bot";
  if (message.text.trim() === "" && message.attachments.length === 0) return "empty message";
  return null;
}
