/** The words of approvals, in the reader's language: the request in the chat and the answers to /approve and /deny. */
import type { Speech, Translate } from "../core/i18n.js";
import type { ApprovalRequest, Decision } from "./requests.js";

/** Why a call waits for a person: every call of its kind does (approvals.mode), or the turn took in these sources. */
export type AskReason = { always: true } | { sources: readonly string[] };

/** The catalog keys of the sources the tools name in `takesIn` (others are shown as they are). */
const SOURCES: Readonly<Record<string, string>> = {
  "a web page": "webPage",
  "web search results": "webSearch",
  "MCP output": "mcp",
  "a transcript": "transcript",
  "other people's group messages": "groupMessages",
  "a browser page": "browserPage",
  "a file it did not write": "foreignFile",
  "a quoted message": "quoted",
};

export function reasonText(reason: AskReason, t: Translate): string {
  if ("always" in reason) return t("approvals.reasonAlways");
  const sources = reason.sources.map((source) => (SOURCES[source] ? t(`approvals.source.${SOURCES[source]}`) : source));
  return t("approvals.reasonTookIn", { sources: sources.join(t("approvals.sourceSeparator")) });
}

export function approvalPrompt(request: ApprovalRequest, reason: AskReason, timeoutSeconds: number, speech: Speech): string {
  const { t } = speech;
  const who = request.requester.name ?? request.requester.userId;
  const timeout = timeoutSeconds % 60 === 0 ? t("approvals.minutes", { count: timeoutSeconds / 60 }) : t("approvals.seconds", { count: timeoutSeconds });
  return [
    t("approvals.title", { tool: request.tool }),
    "",
    request.shows,
    "",
    t("approvals.asked", { reason: reasonText(reason, t), who, timeout, id: request.id }),
  ].join("\n");
}

export function decidedReply(request: ApprovalRequest, t: Translate): string {
  return t(`approvals.decided.${request.status as Decision}`, { tool: request.tool, id: request.id });
}

export function alreadyDecidedReply(request: ApprovalRequest, t: Translate): string {
  if (request.status === "pending") return t("approvals.stillWaiting", { id: request.id });
  return t("approvals.alreadyAnswered", { id: request.id, decision: t(`approvals.answer.${request.status}`), by: request.decidedBy ?? t("approvals.someone") });
}
