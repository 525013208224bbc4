/**
 * /approve <id> [always] and /deny <id>: what the request's buttons run, and the typed form where a platform has
 * no buttons. Only the person whose turn asked, or an owner, may answer; "always" is the owners' alone.
 */
import type { ChatCommand, CommandContext } from "../core/commands.js";
import type { Clock } from "../core/clock.js";
import type { ApprovalRequests, Decision } from "./requests.js";
import { alreadyDecidedReply, decidedReply } from "./texts.js";

export interface ApprovalCommandDeps {
  requests: ApprovalRequests;
  isOwner: (ctx: CommandContext) => boolean;
  clock: Clock;
}

export function approvalCommands(deps: ApprovalCommandDeps): ChatCommand[] {
  return [
    {
      name: "approve",
      summary: "approve a tool call that waits for you (always: for this tool in this chat, owners only)",
      usage: "<id> [always]",
      run: (args, ctx) => answer(deps, args, ctx, "approved"),
    },
    {
      name: "deny",
      summary: "deny a tool call that waits for you",
      usage: "<id>",
      run: (args, ctx) => answer(deps, args, ctx, "denied"),
    },
  ];
}

async function answer(deps: ApprovalCommandDeps, args: string, ctx: CommandContext, asked: "approved" | "denied"): Promise<string> {
  const { t } = ctx.speech;
  const [id, extra, ...rest] = args.trim().split(/\s+/);
  const always = asked === "approved" && extra === "always";
  if (!id || rest.length > 0 || (extra !== undefined && !always)) return t(asked === "approved" ? "approvals.usageApprove" : "approvals.usageDeny");
  const request = await deps.requests.get(id);
  if (!request) return t("approvals.noRequest", { id });
  const { message } = ctx;
  const owner = deps.isOwner(ctx);
  const theirs = message.channel === request.channel && message.sender.id === request.requester.userId;
  if (!owner && !theirs) {
    ctx.log.info({ requestId: id, audit: "refused", reason: "approval answered by someone else" }, "approval answer refused");
    return t("approvals.notYours");
  }
  if (always && !owner) return t("approvals.alwaysOwners");
  const decision: Decision = always ? "always" : asked;
  const decided = await deps.requests.decide(id, decision, `${message.channel}:${message.sender.id}`, deps.clock.now());
  return decided ? decidedReply(decided, t) : alreadyDecidedReply((await deps.requests.get(id)) ?? request, t);
}
