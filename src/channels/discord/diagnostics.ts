/**
 * Set-up problems Discord reports only indirectly, turned into messages that say what to do: gateway close codes
 * that end the connection for good, a rejected token, and message content that Discord withholds because the
 * MESSAGE CONTENT intent is off.
 */
import { DiscordjsErrorCodes, GatewayCloseCodes } from "discord.js";
import { INTENTS_FIX, TOKEN_FIX } from "./fixes.js";
import { USER_MESSAGE_TYPES, type MessageCreate } from "./payload.js";

export const TOKEN_PROBLEM = `Discord rejected the bot token: ${TOKEN_FIX}`;

/** The problem behind a close code after which discord.js does not reconnect; undefined for the others. */
export function closeCodeProblem(code: number): string | undefined {
  switch (code) {
    case GatewayCloseCodes.AuthenticationFailed:
      return `Discord rejected the bot token (gateway close 4004): ${TOKEN_FIX}`;
    case GatewayCloseCodes.DisallowedIntents:
      return `Discord refused the MESSAGE CONTENT intent (gateway close 4014, disallowed intents): ${INTENTS_FIX}`;
    case GatewayCloseCodes.InvalidIntents:
      return "Discord rejected the requested intents as invalid (gateway close 4013); this is a Switchboard bug, please report it";
    case GatewayCloseCodes.ShardingRequired:
      return "The bot is in too many servers for one gateway connection (close 4011); Switchboard does not shard yet";
    case GatewayCloseCodes.InvalidShard:
    case GatewayCloseCodes.InvalidAPIVersion:
      return `Discord closed the gateway with code ${code} and will not accept a reconnect; check DISCORD_API_URL`;
    default:
      return undefined;
  }
}

/** A login failure that retrying cannot fix. */
export function loginProblem(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return code === DiscordjsErrorCodes.TokenInvalid ? TOKEN_PROBLEM : undefined;
}

/**
 * Without the MESSAGE CONTENT intent Discord still delivers guild messages, but with empty content, attachments
 * and embeds (except those mentioning the bot). Such a message cannot be written by a person, so a few of them in
 * a row mean the intent is off.
 */
export class ContentWithheldDetector {
  private streak = 0;
  private problem: string | undefined;

  constructor(private readonly threshold = 2) {}

  /** Returns the problem the first time the evidence is enough; undefined otherwise. */
  observe(payload: MessageCreate): string | undefined {
    if (payload.guild_id === undefined || payload.author.bot === true || !USER_MESSAGE_TYPES.has(payload.type)) return undefined;
    if (!looksWithheld(payload)) {
      this.streak = 0;
      return undefined;
    }
    this.streak += 1;
    if (this.problem !== undefined || this.streak < this.threshold) return undefined;
    this.problem = `Discord is withholding the content of server messages (they arrive empty): ${INTENTS_FIX}`;
    return this.problem;
  }

  /** The problem once detected, for the channel's status. */
  get detected(): string | undefined {
    return this.problem;
  }
}

function looksWithheld(payload: MessageCreate): boolean {
  const lists = [payload.attachments, payload.embeds, payload.sticker_items, payload.components, payload.message_snapshots];
  return payload.content === "" && payload.poll === undefined && lists.every((list) => (list?.length ?? 0) === 0);
}
