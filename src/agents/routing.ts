/**
 * Which rule of `routing` a message falls under: the first whose every given field matches. An id matches as the
 * platform's own or prefixed with its channel (`support-room` and `web:support-room`); a list matches any of its ids.
 */
import type { InboundMessage } from "../core/types.js";
import type { RouteMatch, RouteRule } from "./config.js";

export function firstMatchingRule(rules: readonly RouteRule[], message: InboundMessage): RouteRule | undefined {
  return rules.find((rule) => matches(rule.match, message));
}

function matches(match: RouteMatch, message: InboundMessage): boolean {
  const { channel, chat, sender } = message;
  const id = (wanted: string | string[] | undefined, actual: string | undefined): boolean =>
    wanted === undefined || (actual !== undefined && [wanted].flat().some((w) => w === actual || w === `${channel}:${actual}`));
  return (
    (match.channel === undefined || [match.channel].flat().includes(channel)) &&
    (match.chatKind === undefined || match.chatKind === chat.type) &&
    id(match.space, chat.space) &&
    id(match.chat, chat.id) &&
    id(match.thread, chat.threadId) &&
    id(match.user, sender.id)
  );
}
