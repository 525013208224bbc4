/** Payloads as Slack sends them (Events API callbacks, block_actions, slash commands) and its request signing. */
import { createHmac, randomUUID } from "node:crypto";
import { TEAM_ID, bot, type FakeUser } from "./world.js";

let clock = 1_700_000_000;
/** A fresh message ts: seconds with six digits after the point, increasing. */
export function nextTs(): string {
  clock += 1;
  return `${clock}.${String(Math.floor(Math.random() * 1e6)).padStart(6, "0")}`;
}

export interface MessageOptions {
  channel: string;
  user: FakeUser;
  text: string;
  ts?: string;
  threadTs?: string;
  /** im, channel, group or mpim; derived from the channel id by default. */
  channelType?: string;
  files?: Array<Record<string, unknown>>;
  subtype?: string;
}

export function messageEvent(o: MessageOptions): Record<string, unknown> {
  const channelType = o.channelType ?? (o.channel.startsWith("D") ? "im" : o.channel.startsWith("G") ? "group" : "channel");
  return {
    type: "message",
    ...(o.subtype !== undefined ? { subtype: o.subtype } : o.files ? { subtype: "file_share" } : {}),
    channel: o.channel,
    channel_type: channelType,
    user: o.user.id,
    text: o.text,
    ts: o.ts ?? nextTs(),
    team: TEAM_ID,
    event_ts: o.ts,
    ...(o.threadTs !== undefined ? { thread_ts: o.threadTs } : {}),
    ...(o.files ? { files: o.files } : {}),
  };
}

/** The app_mention twin of a message event that mentions the bot: same channel, ts and text. */
export function appMentionOf(message: Record<string, unknown>): Record<string, unknown> {
  const { type: _type, channel_type: _channelType, subtype: _subtype, ...rest } = message;
  return { ...rest, type: "app_mention" };
}

export function mention(text: string): string {
  return `<@${bot.userId}> ${text}`;
}

export function eventCallback(event: Record<string, unknown>, eventId = `Ev${randomUUID().replace(/-/g, "").slice(0, 10).toUpperCase()}`): Record<string, unknown> {
  return {
    token: "deprecated-verification-token",
    team_id: TEAM_ID,
    api_app_id: "A0FAKEAPP1",
    event,
    type: "event_callback",
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: TEAM_ID, user_id: bot.userId, is_bot: true }],
  };
}

export interface PressOptions {
  user: FakeUser;
  channel: string;
  message: { ts: string; text: string; thread_ts?: string; blocks?: unknown[] };
  actionId: string;
}

export function blockActions(o: PressOptions): Record<string, unknown> {
  return {
    type: "block_actions",
    user: { id: o.user.id, username: o.user.name, team_id: TEAM_ID },
    api_app_id: "A0FAKEAPP1",
    team: { id: TEAM_ID, domain: "fake" },
    channel: { id: o.channel, name: o.channel },
    container: { type: "message", message_ts: o.message.ts, channel_id: o.channel },
    message: { type: "message", user: bot.userId, bot_id: bot.botId, ...o.message },
    trigger_id: `trigger-${randomUUID()}`,
    response_url: "https://hooks.slack.com/actions/never-used",
    actions: [{ type: "button", action_id: o.actionId, block_id: "b1", action_ts: nextTs() }],
  };
}

export function slashCommand(command: string, text: string, user: FakeUser, channel: string): Record<string, string> {
  return {
    token: "deprecated-verification-token",
    team_id: TEAM_ID,
    team_domain: "fake",
    channel_id: channel,
    channel_name: channel,
    user_id: user.id,
    user_name: user.name,
    command,
    text,
    api_app_id: "A0FAKEAPP1",
    response_url: "https://hooks.slack.com/commands/never-used",
    trigger_id: `trigger-${randomUUID()}`,
  };
}

export function sign(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

export interface SignedPost {
  secret: string;
  /** Seconds; default now. */
  timestamp?: number;
  retryNum?: number;
  /** A signature to send instead of the right one. */
  signature?: string;
}

/** Posts to the gateway's /slack/events as Slack does: JSON for events, a form for presses and commands. */
export async function postSigned(url: string, kind: "event" | "press" | "command", payload: Record<string, unknown>, o: SignedPost): Promise<Response> {
  const body =
    kind === "event" ? JSON.stringify(payload) : kind === "press" ? new URLSearchParams({ payload: JSON.stringify(payload) }).toString() : new URLSearchParams(payload as Record<string, string>).toString();
  const timestamp = String(o.timestamp ?? Math.floor(Date.now() / 1000));
  return fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": kind === "event" ? "application/json" : "application/x-www-form-urlencoded",
      "X-Slack-Request-Timestamp": timestamp,
      "X-Slack-Signature": o.signature ?? sign(o.secret, timestamp, body),
      ...(o.retryNum !== undefined ? { "X-Slack-Retry-Num": String(o.retryNum), "X-Slack-Retry-Reason": "http_timeout" } : {}),
    },
    body,
  });
}
