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
/** Platforms whose chats belong to a space (a Discord server, a Slack workspace) and whose senders hold roles there. */
export const SPACE_PLATFORMS = ["discord", "slack"] as const;
const spacePattern = new RegExp(`^(?:${SPACE_PLATFORMS.join("|")}):\\S+$`);
const spaceId = z.string().regex(spacePattern, `must be one of ${SPACE_PLATFORMS.map((p) => `"${p}:"`).join(", ")} and the space's id`);

const groupEntryObject = z.strictObject({
  /** One group chat: `telegram:-1001234`, `feishu:oc_xxx`, `discord:<channel id>`, `slack:<channel id>`. */
  chat: channelScopedId.optional(),
  /** A space: a Discord server (`discord:<guild id>`) or a Slack workspace (`slack:<team id>`); all of its chats, or only those in `channels`. */
  space: spaceId.optional(),
  /** Channel ids of the space that are allowed; empty = every channel. */
  channels: z.array(platformId).default(() => []),
  /** Discord role ids or Slack user group ids: only members holding one of them may talk to the bot here; empty = everyone. */
  roles: z.array(platformId).default(() => []),
  /** Overrides access.requireMention for this chat (false = the bot answers every message). */
  requireMention: z.boolean().optional(),
});

/** `guild`, the older name of `space` from when only Discord had spaces, still reads as `space`. */
function renameGuild(input: unknown): unknown {
  if (input === null || typeof input !== "object" || !("guild" in input)) return input;
  const { guild, ...rest } = input as Record<string, unknown>;
  return "space" in rest ? { ...rest, guild } : { ...rest, space: guild };
}

const groupEntrySchema = z
  .preprocess(renameGuild, groupEntryObject)
  .superRefine((entry, ctx) => {
    if ((entry.chat === undefined) === (entry.space === undefined)) {
      ctx.addIssue({ code: "custom", message: "give exactly one of chat or space (guild is space's older name)" });
    }
    if (entry.channels.length > 0 && entry.space === undefined) {
      ctx.addIssue({ code: "custom", path: ["channels"], message: "only a space entry has channels" });
    }
    const withRoles = entry.space !== undefined || SPACE_PLATFORMS.some((p) => entry.chat?.startsWith(`${p}:`) === true);
    if (entry.roles.length > 0 && !withRoles) {
      ctx.addIssue({ code: "custom", path: ["roles"], message: "roles exist only on Discord (roles) and Slack (user groups)" });
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
        member: grants(["read", "chat", "workspace", "exec"], ["read", "chat"]),
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
