/**
 * The `access` section of the configuration: who may talk to the bot (owners, direct-message and group
 * policies, allowed chats), which tool risk classes each role may use, and the per-user limits.
 * config/default.yaml documents every field with its default.
 */
import { z } from "zod";
import { RISK_CLASSES, type RiskClass } from "../core/tools.js";

export const ROLES = ["owner", "member", "guest"] as const;
/** owner: listed in access.owners; member: in allowFrom or paired; guest: anyone else let in. */
export type Role = (typeof ROLES)[number];

// IDs are strings, never numbers: YAML reads an unquoted 18-digit Discord id as a float and drops digits.
const platformId = z.string().regex(/^\S+$/, "must not contain spaces");
const channelScopedId = z
  .string()
  .regex(
    /^[a-z][a-z0-9_-]*:\S+$/,
    'must be a channel name, a colon and an id, e.g. "telegram:123456"',
  );
const discordGuild = z.string().regex(/^discord:\S+$/, 'must be "discord:" and a server id');

const groupEntrySchema = z
  .strictObject({
    /** One group chat: `telegram:-1001234`, `feishu:oc_xxx`, `discord:<channel id>`. */
    chat: channelScopedId.optional(),
    /** A Discord server: all of its channels, or only those in `channels`. */
    guild: discordGuild.optional(),
    /** Discord channel ids of the server that are allowed; empty = every channel. */
    channels: z.array(platformId).default(() => []),
    /** Discord role ids: only members holding one of them may talk to the bot here; empty = everyone. */
    roles: z.array(platformId).default(() => []),
    /** Overrides access.requireMention for this chat (false = the bot answers every message). */
    requireMention: z.boolean().optional(),
  })
  .superRefine((entry, ctx) => {
    if ((entry.chat === undefined) === (entry.guild === undefined)) {
      ctx.addIssue({ code: "custom", message: "give exactly one of chat or guild" });
    }
    if (entry.channels.length > 0 && entry.guild === undefined) {
      ctx.addIssue({ code: "custom", path: ["channels"], message: "only a guild entry has channels" });
    }
    const discord = entry.guild !== undefined || entry.chat?.startsWith("discord:") === true;
    if (entry.roles.length > 0 && !discord) {
      ctx.addIssue({ code: "custom", path: ["roles"], message: "roles exist only on Discord" });
    }
  });

export type GroupEntry = z.output<typeof groupEntrySchema>;

const riskClasses = (defaults: readonly RiskClass[]) => z.array(z.enum(RISK_CLASSES)).default(() => [...defaults]);
const grants = (direct: readonly RiskClass[], group: readonly RiskClass[]) =>
  z.strictObject({ direct: riskClasses(direct), group: riskClasses(group) }).prefault({});

const rate = (messages: number, windowSeconds: number) =>
  z
    .strictObject({
      messages: z.number().int().min(1).default(messages),
      windowSeconds: z.number().int().min(1).max(86_400).default(windowSeconds),
    })
    .prefault({});

export const accessConfigSchema = z
  .strictObject({
    owners: z.array(channelScopedId).default(() => []),
    dmPolicy: z.enum(["open", "allowlist", "pairing"]).default("pairing"),
    allowFrom: z.array(channelScopedId).default(() => []),
    groupPolicy: z.enum(["allowlist", "open"]).default("allowlist"),
    requireMention: z.boolean().default(true),
    groups: z.array(groupEntrySchema).default(() => []),
    permissions: z
      .strictObject({
        owner: grants(RISK_CLASSES, RISK_CLASSES),
        member: grants(["read", "chat", "web", "workspace", "exec"], ["read", "chat", "web"]),
        guest: grants(["read", "chat"], ["read", "chat"]),
      })
      .prefault({}),
    limits: z
      .strictObject({
        perUser: rate(20, 60),
        perChat: rate(40, 60),
        maxConcurrentTurnsPerUser: z.number().int().min(1).default(3),
      })
      .prefault({}),
    web: z
      .strictObject({
        users: z.enum(["owner", "member", "guest", "policy"]).default("member"),
        limits: z.boolean().default(false),
      })
      .prefault({}),
    groupContext: z
      .strictObject({
        messages: z.number().int().min(0).max(50).default(10),
        maxAgeMinutes: z.number().int().min(1).max(1_440).default(30),
      })
      .prefault({}),
  })
  .prefault({});

export type AccessConfig = z.output<typeof accessConfigSchema>;
