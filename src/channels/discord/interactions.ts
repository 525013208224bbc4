/**
 * Interactions over the gateway (INTERACTION_CREATE): a press of one of the bot's buttons becomes a ButtonPress,
 * a slash command an InboundMessage whose text is the typed command. Each is answered through the interaction
 * callback endpoint within Discord's 3 s: a press with a deferred update, a message update that takes the buttons
 * off, or a notice only the presser sees; a slash command with "thinking…", which the reply then replaces through
 * the interaction's webhook (SlashReplies).
 */
import {
  ButtonStyle,
  ComponentType,
  InteractionResponseType,
  InteractionType,
  MessageFlags,
  Routes,
  type APIActionRowComponent,
  type APIButtonComponentWithCustomId,
  type REST,
} from "discord.js";
import { z } from "zod";
import type { ButtonPress, ButtonRow, InboundMessage, PressAnswer } from "../../core/types.js";
import { ALLOWED_MENTIONS } from "./mentions.js";
import { chatOf, type DiscordDirectory } from "./normalize.js";
import { displayName, userSchema } from "./payload.js";

const snowflake = z.string().regex(/^\d{1,20}$/);

const interactionSchema = z.object({
  id: snowflake,
  application_id: snowflake,
  type: z.number().int(),
  token: z.string().min(1),
  channel_id: snowflake,
  guild_id: snowflake.optional(),
  /** The invoking user's client language, e.g. "en-US" or "zh-CN". */
  locale: z.string().max(35).optional(),
  /** In a server: the member (with the user); in a DM: the user. */
  member: z.object({ user: userSchema, nick: z.string().nullish(), roles: z.array(snowflake).optional() }).optional(),
  user: userSchema.optional(),
  data: z
    .object({
      name: z.string().optional(),
      custom_id: z.string().optional(),
      options: z.array(z.object({ name: z.string(), value: z.unknown() })).optional(),
    })
    .optional(),
  message: z.object({ id: snowflake }).optional(),
});
type Interaction = z.output<typeof interactionSchema>;

/** Discord: at most 5 buttons in a row and 5 rows under a message. */
const ROW_WIDTH = 5;
const MAX_ROWS = 5;
/** The text option every slash command of ours takes. */
export const SLASH_TEXT_OPTION = "text";
/** An interaction's token answers for 15 minutes. */
const TOKEN_LIFETIME_MS = 15 * 60_000;

const STYLES = { primary: ButtonStyle.Primary, secondary: ButtonStyle.Secondary, danger: ButtonStyle.Danger } as const;

/** Button rows as message components: rows wider than Discord allows are wrapped. */
export function componentsOf(rows: readonly ButtonRow[]): Array<APIActionRowComponent<APIButtonComponentWithCustomId>> {
  const wrapped = rows.flatMap((row) => Array.from({ length: Math.ceil(row.length / ROW_WIDTH) }, (_, i) => row.slice(i * ROW_WIDTH, (i + 1) * ROW_WIDTH)));
  return wrapped.slice(0, MAX_ROWS).map((row) => ({
    type: ComponentType.ActionRow,
    components: row.map((button) => ({ type: ComponentType.Button, style: STYLES[button.style ?? "secondary"], label: button.label.slice(0, 80), custom_id: button.actionId })),
  }));
}

export type InteractionParse =
  | { press: ButtonPress }
  | { command: InboundMessage; acknowledge: () => Promise<void> }
  | { skip: string };

/** What an INTERACTION_CREATE payload is to us; answers go out through `rest`. */
export function parseInteraction(raw: unknown, rest: REST, dir: DiscordDirectory, replies: SlashReplies): InteractionParse {
  const parsed = interactionSchema.safeParse(raw);
  if (!parsed.success) return { skip: `malformed interaction: ${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}` };
  const interaction = parsed.data;
  const who = interaction.member?.user ?? interaction.user;
  if (!who) return { skip: "interaction without a user" };
  const sender = {
    id: who.id,
    name: displayName(who, interaction.member?.nick),
    username: who.username,
    isBot: who.bot === true,
    ...(interaction.guild_id !== undefined ? { roles: interaction.member?.roles ?? [] } : {}),
  };
  const chat = chatOf(interaction.channel_id, interaction.guild_id, dir);
  const callback = (body: Record<string, unknown>) => rest.post(Routes.interactionCallback(interaction.id, interaction.token), { body, auth: false });

  if (interaction.type === InteractionType.MessageComponent) {
    const actionId = interaction.data?.custom_id;
    if (actionId === undefined || !interaction.message) return { skip: "component interaction without custom_id or message" };
    return {
      press: {
        channel: "discord",
        id: interaction.id,
        chat,
        sender,
        actionId,
        ...(interaction.locale ? { locale: interaction.locale } : {}),
        messageId: interaction.message.id,
        receivedAt: new Date(),
        answer: (reply) => callback(pressResponse(reply)).then(() => undefined),
      },
    };
  }
  if (interaction.type === InteractionType.ApplicationCommand) {
    const name = interaction.data?.name;
    if (name === undefined) return { skip: "application command without a name" };
    const text = interaction.data?.options?.find((option) => option.name === SLASH_TEXT_OPTION)?.value;
    const platformMessageId = replies.expect(interaction);
    return {
      command: {
        id: `discord:interaction:${interaction.id}`,
        platformMessageId,
        channel: "discord",
        chat,
        sender,
        text: typeof text === "string" && text.trim() !== "" ? `/${name} ${text.trim()}` : `/${name}`,
        attachments: [],
        mentionsBot: true,
        receivedAt: new Date(),
        // The user's client language; only interactions carry it, plain messages do not.
        ...(interaction.locale ? { locale: interaction.locale } : {}),
      },
      // "Thinking…" at once; the reply replaces it.
      acknowledge: () => callback({ type: InteractionResponseType.DeferredChannelMessageWithSource }).then(() => undefined),
    };
  }
  return { skip: `interaction type ${interaction.type} is not handled` };
}

function pressResponse(reply: PressAnswer): Record<string, unknown> {
  if (reply.clearButtons) return { type: InteractionResponseType.UpdateMessage, data: { components: [] } };
  if (reply.notice !== undefined) {
    return { type: InteractionResponseType.ChannelMessageWithSource, data: { content: reply.notice, flags: MessageFlags.Ephemeral, allowed_mentions: ALLOWED_MENTIONS } };
  }
  return { type: InteractionResponseType.DeferredMessageUpdate };
}

/** The webhook of a slash command's interaction, through which its reply goes. */
export interface InteractionWebhook {
  applicationId: string;
  token: string;
}

/** Slash commands waiting for their reply, by the platformMessageId their InboundMessage carries. */
export class SlashReplies {
  private readonly pending = new Map<string, InteractionWebhook & { expiresAt: number }>();

  /** Registers the interaction; answers the platformMessageId its reply refers to. */
  expect(interaction: Pick<Interaction, "id" | "application_id" | "token">): string {
    const now = Date.now();
    for (const [key, entry] of this.pending) if (entry.expiresAt <= now) this.pending.delete(key);
    const key = `${SLASH_PREFIX}${interaction.id}`;
    this.pending.set(key, { applicationId: interaction.application_id, token: interaction.token, expiresAt: now + TOKEN_LIFETIME_MS });
    return key;
  }

  /** The reply went out: later sends to `replyTo` are ordinary messages. */
  finish(replyTo: string | undefined): void {
    if (replyTo !== undefined) this.pending.delete(replyTo);
  }

  /** The webhook answering `replyTo` while its token is valid. */
  webhookFor(replyTo: string | undefined): InteractionWebhook | undefined {
    const entry = replyTo === undefined ? undefined : this.pending.get(replyTo);
    return entry && entry.expiresAt > Date.now() ? entry : undefined;
  }
}

const SLASH_PREFIX = "interaction:";

/** A reply reference that names a slash command, not a message: never sent as a message_reference. */
export function isSlashReference(replyTo: string | undefined): boolean {
  return replyTo?.startsWith(SLASH_PREFIX) === true;
}
