/** The words of approvals: the request in the chat and the answers to /approve and /deny. */
import type { ApprovalRequest, Decision } from "./requests.js";

export function approvalPrompt(request: ApprovalRequest, timeoutSeconds: number): string {
  const who = request.requester.name ?? request.requester.userId;
  return [
    `Approval needed before I run ${request.tool}:`,
    "",
    request.shows,
    "",
    `Asked because ${request.reason}. Only ${who} or an owner may answer; unanswered after ${describeSeconds(timeoutSeconds)} it is denied. (request ${request.id})`,
  ].join("\n");
}

const DONE: Record<Decision, string> = {
  approved: "Approved",
  always: "Approved, and from now on always in this chat,",
  denied: "Denied",
  timed_out: "Timed out",
};

export function decidedReply(request: ApprovalRequest): string {
  return `${DONE[request.status as Decision]}: ${request.tool} (request ${request.id}).`;
}

export function alreadyDecidedReply(request: ApprovalRequest): string {
  if (request.status === "pending") return `The request ${request.id} is still waiting.`;
  return `The request ${request.id} was already answered: ${DONE[request.status].toLowerCase()} by ${request.decidedBy ?? "someone"}.`;
}

function describeSeconds(seconds: number): string {
  return seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}
