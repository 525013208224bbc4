/**
 * Access control as the router uses it: one call per inbound message decides whether it becomes a command or
 * a turn (and with which tool permissions), gets a notice instead (pairing code, slow down), is kept as group
 * context, or is dropped. Every refusal is audited here with the sender and the reason, never the text.
 */
import type { Speech } from "../core/i18n.js";
import type { EarlierChatMessage } from "../core/turn.js";
import type { ChannelName, InboundMessage } from "../core/types.js";
import type { ToolPermissions } from "../core/tools.js";
import type { Logger } from "../infra/log.js";
import type { Store } from "../infra/store/types.js";
import type { AccessConfig, Role } from "./config.js";
import { MessageLimits } from "./limits.js";
import { PairingBook, type PendingPairing } from "./pairing.js";
import { pairingPrompt } from "./pairing-text.js";
import { permissionsFor } from "./permissions.js";
import { AccessPolicy } from "./policy.js";
import { RecentMessages } from "./recent-messages.js";
import { TurnSlots } from "./turn-slots.js";

export type Admission =
  | { kind: "admit"; role: Role; permissions: ToolPermissions }
  /** No command, no turn: answer with `text` (a pairing code, a "slow down"). */
  | { kind: "notice"; text: string }
  | { kind: "drop"; outcome: "ignored" | "refused" };

export type TurnClaim = { kind: "claimed"; release: () => void } | { kind: "busy"; notice: string };

export interface AccessControlDeps {
  config: AccessConfig;
  store: Store;
  /** The names of the channels in use: pairing requests are kept per channel. */
  channels: readonly ChannelName[];
  /**
   * Whether WebChat and API requests carry a checked token (http.token is set). Without it a WebChat user is
   * never an owner, whatever id the client claims.
   */
  webAuthenticated?: boolean;
  /** Told of each newly issued pairing code (the gateway asks the owners to approve it); must not throw. */
  onPairingRequest?: (request: PendingPairing) => void;
  /** For tests that move time forward. */
  now?: () => number;
}

const IGNORED: Admission = { kind: "drop", outcome: "ignored" };
const REFUSED: Admission = { kind: "drop", outcome: "refused" };

export class AccessControl {
  readonly pairing: PairingBook;
  private readonly config: AccessConfig;
  private readonly policy: AccessPolicy;
  private readonly limits: MessageLimits;
  private readonly slots: TurnSlots;
  private readonly recent: RecentMessages;
  private readonly now: () => number;
  private readonly onPairingRequest: ((request: PendingPairing) => void) | undefined;

  constructor(deps: AccessControlDeps) {
    this.onPairingRequest = deps.onPairingRequest;
    this.config = deps.config;
    this.now = deps.now ?? Date.now;
    this.pairing = new PairingBook(deps.store, deps.channels, this.now);
    this.policy = new AccessPolicy(deps.config, (channel, userId) => this.pairing.isApproved(channel, userId), deps.webAuthenticated ?? false);
    this.limits = new MessageLimits(deps.config.limits, deps.store, this.now);
    this.slots = new TurnSlots(deps.config.limits.maxConcurrentTurnsPerUser, deps.store);
    this.recent = new RecentMessages(deps.config.groupContext, deps.store, this.now);
  }

  isOwner(channel: ChannelName, userId: string): boolean {
    return this.policy.isOwner(channel, userId);
  }

  /** `log` should carry the message's channel and chat; the audit lines add the user and the reason. */
  async admit(message: InboundMessage, log: Logger, speech: Speech): Promise<Admission> {
    const decision = await this.policy.decide(message);
    switch (decision.kind) {
      case "ignore":
        log.debug({ userId: message.sender.id, reason: decision.reason }, "message ignored");
        return IGNORED;
      case "context":
        await this.recent.remember(message);
        log.debug("unaddressed group message kept as context");
        return IGNORED;
      case "refuse":
        audit(log, message, decision.reason);
        return decision.notice === undefined ? REFUSED : { kind: "notice", text: decision.notice(speech.t) };
      case "pair":
        return (await this.overLimit(message, "guest", log, speech)) ?? this.pairingNotice(message, log, speech);
      case "admit": {
        const { role } = decision;
        const permissions = permissionsFor(this.config, role, message.chat.type);
        return (await this.overLimit(message, role, log, speech)) ?? { kind: "admit", role, permissions };
      }
    }
  }

  /** A turn's slot under the per-user cap; release it when the turn is over. */
  async claimTurn(message: InboundMessage, sessionKey: string, role: Role, log: Logger, speech: Speech): Promise<TurnClaim> {
    if (this.exempt(message, role)) return { kind: "claimed", release: () => {} };
    const release = await this.slots.claim(`${message.channel}:${message.sender.id}`, sessionKey);
    if (release) return { kind: "claimed", release };
    const max = this.config.limits.maxConcurrentTurnsPerUser;
    audit(log, message, `over the cap of ${max} concurrent turns per user`);
    return { kind: "busy", notice: speech.t("access.busy", { count: max }) };
  }

  /** The group's unaddressed messages since the bot last answered there, handed out once. */
  takeEarlierMessages(message: InboundMessage): Promise<EarlierChatMessage[]> {
    return this.recent.take(message);
  }

  /** Owners are never limited; WebChat users only when access.web.limits says so (the client picks their id). */
  private exempt(message: InboundMessage, role: Role): boolean {
    return role === "owner" || (message.channel === "web" && !this.config.web.limits);
  }

  private async overLimit(message: InboundMessage, role: Role, log: Logger, speech: Speech): Promise<Admission | undefined> {
    if (this.exempt(message, role)) return undefined;
    const verdict = await this.limits.check(message);
    if (verdict.kind === "within") return undefined;
    const dropped = verdict.kind === "drop" ? { dropped: verdict.dropped } : {};
    audit(log, message, `over the per-${verdict.scope} message rate limit`, dropped);
    if (verdict.kind === "drop") return REFUSED;
    const rate = { messages: verdict.rate.messages, seconds: verdict.rate.windowSeconds };
    return { kind: "notice", text: speech.t(verdict.scope === "user" ? "access.slowDownUser" : "access.slowDownChat", rate) };
  }

  private async pairingNotice(message: InboundMessage, log: Logger, speech: Speech): Promise<Admission> {
    const { channel, sender, chat } = message;
    const name = sender.name ?? sender.username;
    const request = await this.pairing.request({
      channel,
      userId: sender.id,
      chatId: chat.id,
      ...(name !== undefined ? { name } : {}),
    });
    audit(log, message, `unknown user in a direct chat; pairing request ${request.status}`);
    if (request.status === "issued") {
      this.onPairingRequest?.({
        channel,
        code: request.code,
        userId: sender.id,
        chatId: chat.id,
        ...(name !== undefined ? { name } : {}),
        requestedAt: this.now(),
        expiresAt: request.expiresAt.getTime(),
      });
    }
    return { kind: "notice", text: pairingPrompt(channel, request, this.now(), speech.t) };
  }
}

/** One line per refused message: who and why; the chat and channel come from `log`'s bindings. */
function audit(log: Logger, message: InboundMessage, reason: string, extra: object = {}): void {
  log.info({ audit: "refused", userId: message.sender.id, reason, ...extra }, "message refused");
}
