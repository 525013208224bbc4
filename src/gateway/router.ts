/**
 * The router: every inbound message of every channel comes through here. It drops redeliveries, lets the
 * access policy decide whether the message is for the bot and allowed, answers slash commands, and queues the
 * rest as agent turns, one at a time per session, then sends the reply back through the channel it came from.
 */
import { join } from "node:path";
import type { AccessControl, Admission } from "../access/access-control.js";
import type { Agent } from "../agent/agent.js";
import type { CoreConfig } from "../infra/config/core-schema.js";
import type { Logger } from "../infra/log.js";
import { inboundMessages, turnDuration } from "../infra/metrics.js";
import type { Store, Ticket } from "../infra/store/types.js";
import type { ZonePreferences } from "../scheduler/zone-preferences.js";
import type { SessionDirectory } from "../sessions/directory.js";
import type { ChatCommand, CommandContext, CommandReply } from "../core/commands.js";
import type { Outbound } from "../core/outbound.js";
import { commandTable, parseCommand } from "./commands.js";
import { coreCommands } from "./core-commands.js";
import { LanguagePreferences, languageCommand } from "./languages.js";
import { Translator } from "../infra/i18n/index.js";
import { agentSessionKey, sessionKeyOf } from "../core/session-key.js";
import type { AgentDirectory } from "../core/agents.js";
import type { Workspaces } from "../infra/workspace.js";
import { InboundDedup } from "./inbound-dedup.js";
import { KeyedMutex } from "../infra/store/keyed-mutex.js";
import { LiveTurn } from "./live-turn.js";
import { acknowledgeTurn, keepTyping } from "./acknowledge.js";
import { ButtonActions, CONTINUE_BUTTON } from "./actions.js";
import { SessionQueue } from "./session-queue.js";
import { StopRelay } from "./stop-relay.js";
import type { ButtonPress, Channel, ChannelName, HandleOutcome, InboundMessage } from "../core/types.js";
import { randomHex } from "../core/ids.js";
import { activeTraceId, inSpan, inTrace, startSpan } from "../infra/tracing.js";
import { systemClock, type Clock } from "../core/clock.js";
import type { ReplyHook, ReplyReplacement, SentReply } from "../core/reply-hook.js";
import { ReplySender, type Delivery } from "./reply-sender.js";

export interface RouterDeps {
  config: CoreConfig;
  store: Store;
  log: Logger;
  channelOf: (name: ChannelName) => Channel | undefined;
  /** Every reply goes out through here (retries, outbox). */
  outbound: Outbound;
  /** null when no LLM is configured; free-form messages then get `llmProblem` as the answer. */
  agent: Agent | null;
  llmProblem: string | null;
  /** Who may talk to the bot, with which tools, and how often. */
  access: AccessControl;
  /** Slash commands of other parts of the gateway, beside the router's own. */
  commands?: ChatCommand[];
  /** The features' additions after a turn's text reply (a spoken rendition). */
  afterReply?: readonly ReplyHook[];
  /** The features that may send a turn's reply in another form instead of its text (spoken only). */
  replyInstead?: readonly ReplyReplacement[];
  /** Where each turn notes its session, for the console's list. */
  sessions?: SessionDirectory;
  /** Records the buttons under replies and runs their presses; by default one of its own. */
  actions?: ButtonActions;
  /** Takes a client's reported time zone (WebChat's browser) as the user's until they set one. */
  zones?: ZonePreferences;
  workspaces: Workspaces;
  /** Which agent answers a chat; absent: the one default agent. */
  agents?: AgentDirectory;
  /** Times the typing signal and the acknowledgement; the real clock when absent. */
  clock?: Clock;
  /** Each person's language; by default one of its own over the store, falling back to i18n.default. */
  languages?: LanguagePreferences;
}

export class Router {
  private readonly queue: SessionQueue;
  private readonly stops: StopRelay;
  private readonly dedup: InboundDedup;
  private readonly intake = new KeyedMutex();
  private readonly replies: ReplySender;
  /** Every command, the router's own first: /help and the platforms' native menus list them. */
  readonly commands: readonly ChatCommand[];
  private readonly commandsByName: Map<string, ChatCommand>;
  private accepting = true;
  /** Buttons under replies, and their presses. */
  readonly actions: ButtonActions;
  private readonly clock: Clock;
  readonly languages: LanguagePreferences;

  constructor(private readonly deps: RouterDeps) {
    this.clock = deps.clock ?? systemClock;
    this.languages = deps.languages ?? new LanguagePreferences(deps.store, new Translator(deps.config.i18n.default));
    this.actions = deps.actions ?? new ButtonActions(deps.store, deps.log.child({ component: "actions" }));
    this.queue = new SessionQueue(deps.config.sessions.maxConcurrent);
    this.stops = new StopRelay(deps.store.bus, (sessionKey) => void this.queue.cancel(sessionKey), deps.log);
    const { dedupTtlHours, dedupLeaseMinutes } = deps.config.sessions;
    this.dedup = new InboundDedup(deps.store, {
      ttlMs: dedupTtlHours * 3_600_000,
      leaseMs: dedupLeaseMinutes * 60_000,
      keepWaiting: () => this.accepting,
    });
    this.replies = new ReplySender({
      outbound: deps.outbound,
      actions: this.actions,
      dedup: this.dedup,
      afterReply: deps.afterReply ?? [],
      replyInstead: deps.replyInstead ?? [],
    });
    const core = coreCommands({
      config: deps.config,
      agent: deps.agent,
      llmProblem: deps.llmProblem,
      isOwner: (message) => deps.access.isOwner(message.channel, message.sender.id),
      queue: this.queue,
      stops: this.stops,
      allCommands: () => this.commands,
      resetSession: (sessionKey) => this.resetSession(sessionKey),
    });
    this.commands = [...core, languageCommand(this.languages), ...(deps.commands ?? [])];
    this.commandsByName = commandTable(this.commands);
  }

  /** The InboundHandler given to every channel. */
  readonly handle = (message: InboundMessage): Promise<HandleOutcome> =>
    inTrace("message", { "messaging.system": message.channel, "switchboard.chat_type": message.chat.type }, async (span) => {
      const outcome = await this.handleMessage(message);
      span.setAttribute("switchboard.outcome", outcome);
      return outcome;
    });

  private async handleMessage(message: InboundMessage): Promise<HandleOutcome> {
    const traceId = activeTraceId() ?? randomHex(12);
    const agent = (await this.deps.agents?.choose(message))?.agent;
    const baseKey = sessionKeyOf(message, this.deps.config.sessions.scope);
    const sessionKey = agent ? agentSessionKey(baseKey, agent.id) : baseKey;
    // The message's one logger, made from the gateway's: a child of a child makes its parent a prototype, which
    // costs V8 a hidden class of its own on every message.
    const log = this.deps.log.child({ traceId, channel: message.channel, chatId: message.chat.id, messageId: message.id, sessionKey });
    const channel = this.deps.channelOf(message.channel);
    if (!channel) {
      log.error("message from a channel that is not running; dropped");
      return "failed";
    }
    if (!this.accepting) {
      log.info("message arrived during shutdown; deferred to the next start");
      return "deferred";
    }
    // The steps before the session queue run one message at a time per session, so that two messages of one
    // session enter the queue in the order they arrived; the turn itself is awaited outside.
    const placed = await this.intake.run(sessionKey, async () => {
      const claim = await this.dedup.claim(message.id);
      if (claim !== "claimed") return claim;
      // Settled here, so a failure is handled below, where the claim is finished, and not inside the intake.
      return this.route({ message, channel, sessionKey, agent, log, traceId }).then(
        (routed) => ({ routed }),
        (err: unknown) => ({ failure: err }),
      );
    });
    if (placed === "handled") {
      log.debug("duplicate delivery dropped");
      return "duplicate";
    }
    if (placed === "deferred") {
      log.info("message claimed by another replica at shutdown; deferred to the next start");
      return "deferred";
    }
    let outcome: HandleOutcome | undefined;
    try {
      if ("failure" in placed) throw placed.failure;
      outcome = await placed.routed.outcome;
      // A turn cut short by shutdown is not the user's /stop: the message is handled again after the restart.
      if (outcome === "stopped" && !this.accepting) outcome = "deferred";
      return outcome;
    } finally {
      inboundMessages.inc({ channel: message.channel, outcome: outcome ?? "failed" });
      // A deferred message is given back, so whichever replica (or the next start) receives it again handles it.
      const settle = outcome === "deferred" ? this.dedup.release(message.id) : this.dedup.finish(message.id);
      await settle.catch((err: unknown) => log.error({ err, outcome }, "could not record the message's outcome in the dedup"));
    }
  }

  /** The ButtonPressHandler given to every channel: a press runs its action as a message from the presser. */
  readonly handlePress = async (press: ButtonPress): Promise<void> => {
    const speech = await this.languages.speechOf(press);
    // Not claimed while shutting down: the button stays usable after the restart.
    if (!this.accepting) return press.answer({ notice: speech.t("errors.restarting") }).catch(() => undefined);
    return this.actions.press(press, this.handle, speech);
  };

  /**
   * Decides what the message gets. Resolves once the message has its place (a turn is queued, or an answer is on
   * its way) with the outcome still to come, so the caller can let the session's next message in.
   */
  private async route(arrival: Omit<Delivery, "speech">): Promise<{ outcome: Promise<HandleOutcome> }> {
    const { message, channel, log } = arrival;
    const now = (outcome: HandleOutcome) => ({ outcome: Promise.resolve(outcome) });
    const reason = ignoreReason(message, channel);
    if (reason) {
      log.debug({ reason }, "message ignored");
      return now("ignored");
    }
    const speech = await this.languages.speechOf(message);
    const admission = await inSpan("access", {}, async (span) => {
      const admitted = await this.deps.access.admit(message, log, speech);
      span.setAttribute("switchboard.admission", admitted.kind);
      return admitted;
    });
    if (admission.kind === "drop") return now(admission.outcome);
    const delivery: Delivery = { ...arrival, speech };
    if (admission.kind === "notice") return { outcome: this.replies.notice(delivery, admission.text) };
    await this.adoptReportedZone(delivery);
    const parsed = parseCommand(message.text, this.commandsByName);
    if (parsed) return { outcome: this.runCommand(delivery, parsed.command, parsed.args) };
    if (!this.deps.agent) {
      const text = speech.t("errors.noModel", { problem: this.deps.llmProblem ?? "no LLM configured" });
      return { outcome: this.replies.reply(delivery, text) };
    }
    const turn = await this.placeTurn(delivery, admission);
    if (turn.kind === "busy") return { outcome: this.replies.notice(delivery, turn.notice) };
    // enqueueTurn takes the queue's place before its first await.
    return { outcome: this.enqueueTurn(delivery, this.deps.agent, turn) };
  }

  /**
   * The turn's places, taken while the intake holds the session: the user's turn slot, then the session's ticket.
   * Tickets are numbered by the store (one counter per session, shared by the replicas), so a session's turns run
   * one at a time in the order their messages reached a router, on whichever replica; platform timestamps would
   * not do, as WebChat has none and redeliveries keep theirs.
   */
  private async placeTurn(d: Delivery, admitted: Admitted): Promise<PlacedTurn | { kind: "busy"; notice: string }> {
    const claim = await this.deps.access.claimTurn(d.message, d.sessionKey, admitted.role, d.log, d.speech);
    if (claim.kind === "busy") return claim;
    try {
      const leaseMs = this.deps.config.sessions.turnLeaseMs;
      const ticket = await this.deps.store.coordinator.takeTicket(`session:${d.sessionKey}`, { leaseMs });
      return { kind: "placed", permissions: admitted.permissions, ticket, releaseSlot: claim.release };
    } catch (err) {
      claim.release();
      throw err;
    }
  }

  /** Stops taking messages, lets running turns finish until the deadline, then cancels the rest. */
  async drain(graceMs: number): Promise<void> {
    this.accepting = false;
    await this.stops.close();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), graceMs)));
    const finished = await Promise.race([this.queue.idle().then(() => "idle" as const), deadline]);
    clearTimeout(timer);
    if (finished === "late") {
      this.deps.log.warn({ activeTurns: this.queue.activeTurns }, "shutdown deadline reached; cancelling running turns");
      this.queue.cancelAll();
      await this.queue.idle();
    }
    await this.deps.sessions?.flush().catch((err: unknown) => this.deps.log.warn({ err }, "could not write the session directory at shutdown"));
  }

  private async enqueueTurn(d: Delivery, agent: Agent, turn: PlacedTurn): Promise<HandleOutcome> {
    // Ended when the turn starts, or with the turn cancelled while it waited (an ended span records no more).
    const waiting = startSpan("queue wait");
    const endWait = () => waiting.isRecording() && waiting.end();
    try {
      // queue.run takes the session's place now, before any await: the intake lets the next message in after it.
      return await this.queue.run(d.sessionKey, async (signal) => {
        endWait();
        await this.noteSession(d).catch((err: unknown) => d.log.warn({ err }, "could not note the chat in the session directory"));
        const stopTyping = keepTyping(d.channel, d.message, d.log, this.clock);
        const endTimer = turnDuration.startTimer({ channel: d.message.channel });
        const live = d.agent?.liveReply === false ? undefined : LiveTurn.open(d.channel, d.message);
        const endAck = acknowledgeTurn(d.channel, d.message, d.log, this.clock);
        try {
          const workspaceDir = this.deps.workspaces.dirOf(d.sessionKey);
          // Taken when the turn starts, so chatter that arrived while it waited in the queue is included.
          const earlierMessages = await this.deps.access.takeEarlierMessages(d.message);
          const result = await turn.ticket.run(
            (fence) =>
              inSpan("turn", {}, () => agent.runTurn({
                sessionKey: d.sessionKey,
                message: d.message,
                workspaceDir,
                signal,
                log: d.log,
                traceId: d.traceId,
                download: (attachment) => d.channel.download(attachment, join(workspaceDir, "inbox")),
                permissions: turn.permissions,
                speech: d.speech,
                ...(d.agent ? { agentId: d.agent.id } : {}),
                earlierMessages,
                fence,
                ...(live ? { onEvent: live.onEvent } : {}),
              })),
            { waitMs: 15 * 60_000 },
          );
          const reply: SentReply = { message: d.message, sessionKey: d.sessionKey, text: result.text, locale: d.speech.locale, workspaceDir, signal, log: d.log, traceId: d.traceId, ...(turn.permissions ? { permissions: turn.permissions } : {}) };
          const plain = !result.stepLimit && !result.errorId;
          // A reply sent in another form (spoken only) takes the place of the preview, as the Continue reply of a
          // turn cut off at the step limit does (no preview carries buttons).
          const replaced = plain && (await this.replies.replaced(reply));
          if (replaced || result.stepLimit) await live?.cancel().catch((err: unknown) => d.log.warn({ err }, "could not take back the preview"));
          // A failed turn's apology takes the place of its half-written preview.
          const outcome = replaced
            ? await this.replies.answered(d, "sent")
            : result.stepLimit
              ? await this.replies.reply(d, { text: result.text, buttons: [[CONTINUE_BUTTON]] })
              : await this.replies.reply(d, result.text, live);
          const turnOutcome = result.errorId ? "failed" : outcome;
          if (turnOutcome === "answered" && plain && !replaced) await this.replies.afterReply(reply);
          endTimer({ outcome: turnOutcome });
          return turnOutcome;
        } catch (err) {
          await live?.cancel().catch((cancelErr: unknown) => d.log.warn({ err: cancelErr }, "could not take back the preview"));
          throw err;
        } finally {
          stopTyping();
          await endAck();
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
      endWait();
      turn.releaseSlot();
      // A turn cancelled while queued never ran its ticket: its place in the session's line is given up here.
      await turn.ticket.release();
    }
  }

  private async runCommand(d: Delivery, command: ChatCommand, args: string): Promise<HandleOutcome> {
    d.log.info({ command: command.name }, "slash command");
    const ctx: CommandContext = {
      message: d.message,
      sessionKey: d.sessionKey,
      log: d.log,
      traceId: d.traceId,
      speech: d.speech,
      ...(d.agent ? { agentId: d.agent.id } : {}),
    };
    let text: string | CommandReply;
    try {
      text = await command.run(args, ctx);
    } catch (err) {
      const errorId = randomHex(8);
      d.log.error({ err, errorId, command: command.name }, "slash command failed");
      text = d.speech.t("errors.command", { command: command.name, errorId });
    }
    return this.replies.reply(d, text);
  }

  /** Forgets the session's history, through its queue so the reset lands after the turns that came before it. */
  async resetSession(sessionKey: string): Promise<void> {
    await this.queue.run(sessionKey, async () => this.deps.agent?.resetSession(sessionKey));
  }

  private async adoptReportedZone(d: Delivery): Promise<void> {
    const { message } = d;
    const reported = message.sender.timeZone;
    if (!reported || !this.deps.zones) return;
    const scope = { channel: message.channel, chatId: message.chat.id, userId: message.sender.id };
    const adopted = await this.deps.zones.adoptClientZone(scope, reported).catch((err: unknown) => {
      d.log.warn({ err }, "could not store the reported time zone");
      return false;
    });
    if (adopted) d.log.info({ zone: reported }, "time zone taken from the client");
  }

  private async noteSession(d: Delivery): Promise<void> {
    const { message } = d;
    await this.deps.sessions?.touch({
      key: d.sessionKey,
      channel: message.channel,
      chatId: message.chat.id,
      chatType: message.chat.type,
      ...(message.chat.title ? { chatTitle: message.chat.title } : {}),
      userId: message.sender.id,
      ...(message.sender.name ? { userName: message.sender.name } : {}),
      text: message.text,
    });
  }
}

type Admitted = Extract<Admission, { kind: "admit" }>;

/** A turn with its places taken (see placeTurn); both are given back when it ends, however. */
interface PlacedTurn {
  kind: "placed";
  permissions: Admitted["permissions"];
  ticket: Ticket;
  releaseSlot: () => void;
}

/** Messages the bot never answers, whoever sent them, and why; who may talk is the access policy's call. */
function ignoreReason(message: InboundMessage, channel: Channel): string | null {
  // A channel may let other bots talk to this one (its adapter then guards against reply loops).
  if (message.sender.isBot && !channel.acceptsBots) return "sent by a bot";
  if (message.text.trim() === "" && message.attachments.length === 0) return "empty message";
  return null;
}
