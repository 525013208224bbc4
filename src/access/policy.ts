/**
 * The access decision for one inbound message, the same for every channel: who the sender is (owner, member,
 * guest), whether they may talk to the bot in this chat, and whether this message asks for an answer at all.
 * Adapters only describe the message (chat type, mention, space, roles); every decision is taken here.
 */
import type { Translate } from "../core/i18n.js";
import type { InboundMessage } from "../core/types.js";
import type { AccessConfig, Role } from "./config.js";
import { GroupRules, requiresMention, senderQualifies } from "./groups.js";

export type Decision =
  /** Answer it (a command or a turn) with the sender's role. */
  | { kind: "admit"; role: Role }
  /** An unknown user in a direct chat under dmPolicy pairing: they get a pairing code, nothing else. */
  | { kind: "pair" }
  /** An unaddressed message of an allowed group: kept as context for the next message that is addressed. */
  | { kind: "context" }
  /** Not meant for the bot (e.g. no mention in a group it is not allowed in); logged at debug. */
  | { kind: "ignore"; reason: string }
  /** Addressed to the bot but not allowed; audited. `notice` (in the sender's words) is sent back when they should learn why. */
  | { kind: "refuse"; reason: string; notice?: (t: Translate) => string };

export type ApprovalLookup = (channel: InboundMessage["channel"], userId: string) => Promise<boolean>;

export class AccessPolicy {
  private readonly owners: ReadonlySet<string>;
  private readonly allowFrom: ReadonlySet<string>;
  private readonly groups: GroupRules;

  constructor(
    private readonly config: AccessConfig,
    private readonly isPaired: ApprovalLookup,
    /** http.token is set: only then may a WebChat or API user be an owner. */
    private readonly webAuthenticated = false,
  ) {
    this.owners = new Set(config.owners);
    this.allowFrom = new Set(config.allowFrom);
    this.groups = new GroupRules(config.groups);
  }

  isOwner(channel: InboundMessage["channel"], userId: string): boolean {
    if (channel === "web" && !this.webAuthenticated) return false;
    return this.owners.has(`${channel}:${userId}`);
  }

  async decide(message: InboundMessage): Promise<Decision> {
    const { web } = this.config;
    if (message.channel === "web" && web.users !== "policy") {
      // WebChat is gated by the HTTP token (or loopback), so whoever reaches it gets the configured role.
      // Without the token nobody over HTTP is an owner: users "owner" then means member.
      const role = web.users === "owner" && !this.webAuthenticated ? "member" : web.users;
      return { kind: "admit", role: this.isOwner("web", message.sender.id) ? "owner" : role };
    }
    return message.chat.type === "direct" ? this.decideDirect(message) : this.decideGroup(message);
  }

  private async decideDirect(message: InboundMessage): Promise<Decision> {
    const role = await this.roleOf(message);
    if (role !== "guest") return { kind: "admit", role };
    switch (this.config.dmPolicy) {
      case "open":
        return { kind: "admit", role };
      case "pairing":
        return { kind: "pair" };
      case "allowlist":
        return { kind: "refuse", reason: "direct messages are limited to the allowlist (access.dmPolicy)" };
    }
  }

  private async decideGroup(message: InboundMessage): Promise<Decision> {
    const entry = this.groups.entryFor(message);
    if (!entry && this.config.groupPolicy === "allowlist") {
      const chat = `${message.channel}:${message.chat.id}`;
      const notice = this.isOwner(message.channel, message.sender.id)
        ? (t: Translate) => t("groups.notAllowed", { chat })
        : undefined;
      return this.notAllowed(message, `group chat ${chat} is not on the allowlist (access.groups)`, notice);
    }
    if (entry && !senderQualifies(entry, message)) {
      return this.notAllowed(message, "the sender holds none of the roles this chat requires");
    }
    if (requiresMention(entry, this.config) && !message.mentionsBot) return { kind: "context" };
    return { kind: "admit", role: await this.roleOf(message) };
  }

  /** Only a message that asks the bot for something is a refusal worth auditing; the rest is chatter. */
  private notAllowed(message: InboundMessage, reason: string, notice?: (t: Translate) => string): Decision {
    if (!message.mentionsBot) return { kind: "ignore", reason };
    return notice === undefined ? { kind: "refuse", reason } : { kind: "refuse", reason, notice };
  }

  private async roleOf(message: InboundMessage): Promise<Role> {
    const { channel, sender } = message;
    if (this.isOwner(channel, sender.id)) return "owner";
    if (this.allowFrom.has(`${channel}:${sender.id}`)) return "member";
    return (await this.isPaired(channel, sender.id)) ? "member" : "guest";
  }
}
