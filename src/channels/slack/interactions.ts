/**
 * Interactivity: a press of one of the bot's Block Kit buttons becomes a ButtonPress, a slash command an
 * InboundMessage whose text is the typed command. Both are acknowledged before they get here (the socket's ack or
 * the HTTP 200, within Slack's 3 s). A press is answered with Web API calls: a notice only the presser sees
 * (chat.postEphemeral), or the message updated without its buttons (chat.update).
 *
 * Slack keeps some command names for itself (/status, /remind), so the gateway's commands ride one slash command
 * of the app's (`channels.slack.slashCommand`, /switchboard): `/switchboard new` is /new, a bare one is /help.
 * Another command the app has is passed on as it is.
 */
import type { ButtonPress, ChatRef, InboundMessage, OutboundTarget, PressAnswer } from "../../core/types.js";
import { isDirectChannel, type BlockActions, type SlashCommand } from "./payload.js";
import type { Block, SlackSender } from "./send.js";

function chatOf(channel: string, team: string | undefined, threadTs: string | undefined): ChatRef {
  const direct = isDirectChannel(channel);
  return {
    id: channel,
    type: direct ? "direct" : "group",
    ...(team !== undefined ? { space: team } : {}),
    ...(threadTs !== undefined ? { threadId: threadTs } : {}),
  };
}

export function pressOf(payload: BlockActions, sender: SlackSender, receivedAt = new Date()): ButtonPress {
  const action = payload.actions[0]!;
  const team = payload.team?.id ?? payload.user.team_id;
  const chat = chatOf(payload.channel.id, team, payload.message.thread_ts);
  const to: OutboundTarget = { channel: "slack", chatId: chat.id, ...(chat.threadId !== undefined ? { threadId: chat.threadId } : {}) };
  return {
    channel: "slack",
    id: `${payload.message.ts}:${action.action_ts ?? action.action_id}`,
    chat,
    sender: { id: payload.user.id, ...(payload.user.username !== undefined ? { username: payload.user.username } : {}) },
    actionId: action.action_id,
    messageId: payload.message.ts,
    receivedAt,
    answer: (reply: PressAnswer) => answer(sender, to, payload, reply),
  };
}

async function answer(sender: SlackSender, to: OutboundTarget, payload: BlockActions, reply: PressAnswer): Promise<void> {
  if (reply.clearButtons) {
    const blocks = (payload.message.blocks ?? []).filter((block) => block.type !== "actions") as Block[];
    await sender.update(to, payload.message.ts, payload.message.text ?? "", blocks);
  }
  if (reply.notice !== undefined) await sender.ephemeral(to, payload.user.id, reply.notice);
}

/** The InboundMessage of a slash command: the gateway's command it stands for, typed by the user. */
export function commandOf(payload: SlashCommand, umbrella: string, receivedAt = new Date()): InboundMessage {
  const args = payload.text.trim();
  let text: string;
  if (payload.command === umbrella) text = args === "" ? "/help" : args.startsWith("/") ? args : `/${args}`;
  else text = args === "" ? payload.command : `${payload.command} ${args}`;
  return {
    id: `slack:command:${payload.trigger_id}`,
    platformMessageId: `command:${payload.trigger_id}`,
    channel: "slack",
    chat: chatOf(payload.channel_id, payload.team_id, undefined),
    sender: { id: payload.user_id, ...(payload.user_name !== undefined ? { username: payload.user_name } : {}) },
    text,
    attachments: [],
    mentionsBot: true,
    receivedAt,
  };
}
