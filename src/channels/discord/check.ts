/**
 * `switchboard doctor` for Discord: the token (GET /users/@me), the MESSAGE CONTENT intent as the application's
 * flags show it (GET /applications/@me), and the servers the bot is in (GET /users/@me/guilds).
 */
import { ApplicationFlags, PermissionFlagsBits } from "discord.js";
import { z } from "zod";
import { fetchJson } from "../module.js";
import { DEFAULT_API_URL, type DiscordConfig } from "./config.js";
import { INTENTS_FIX } from "./fixes.js";

const botSchema = z.object({ id: z.string(), username: z.string() });
const applicationSchema = z.object({ id: z.string(), flags: z.number().int().optional() });
const guildsSchema = z.array(z.object({ id: z.string(), name: z.string() }));

const CONTENT_INTENT_FLAGS = ApplicationFlags.GatewayMessageContent | ApplicationFlags.GatewayMessageContentLimited;
/** What the bot needs in a channel: see it, read its history, write (also in threads) and attach files. */
const INVITE_PERMISSIONS =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.ReadMessageHistory |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.SendMessagesInThreads |
  PermissionFlagsBits.AttachFiles;

export async function checkDiscord(settings: DiscordConfig): Promise<string> {
  const { token, apiUrl } = settings;
  if (token === null) throw new Error("no bot token configured");
  const get = async (route: string) =>
    fetchJson(`${apiUrl ?? DEFAULT_API_URL}/v10${route}`, { headers: { Authorization: `Bot ${token}` } });

  const bot = botSchema.parse(await get("/users/@me"));
  const found = [`token valid for ${bot.username} (id ${bot.id})`];
  const application = applicationSchema.safeParse(await get("/applications/@me").catch(() => null));
  if (!application.success || application.data.flags === undefined) {
    found.push("MESSAGE CONTENT intent not visible");
  } else if ((application.data.flags & CONTENT_INTENT_FLAGS) === 0) {
    throw new Error(`${found.join("; ")}, but the MESSAGE CONTENT intent is off: ${INTENTS_FIX}`);
  } else {
    found.push("MESSAGE CONTENT intent on");
  }

  const guilds = guildsSchema.parse(await get("/users/@me/guilds"));
  if (guilds.length === 0) {
    const invite = `https://discord.com/oauth2/authorize?client_id=${bot.id}&scope=bot&permissions=${INVITE_PERMISSIONS}`;
    throw new Error(`${found.join("; ")}, but the bot is in no server yet: invite it with ${invite}`);
  }
  const names = guilds.slice(0, 5).map((g) => g.name);
  found.push(`in ${guilds.length} server${guilds.length === 1 ? "" : "s"}: ${names.join(", ")}${guilds.length > 5 ? ", ..." : ""}`);
  return found.join("; ");
}
