/**
 * The tool gate (core/approvals.ts port): decides whether a call must wait for a person, asks in the chat with
 * buttons (or the typed forms), and waits for the answer, the timeout, or the turn's end. The request lives in the
 * store under an id derived from the turn's message and the call, so a turn resumed after a restart finds it again
 * instead of asking twice, and an approval buys exactly one run.
 */
import { createHash } from "node:crypto";
import type { ApprovalNote } from "../core/approval-context.js";
import type { GatedCall, GateVerdict, ToolGate } from "../core/approvals.js";
import type { ButtonMessages } from "../core/button-messages.js";
import type { Clock } from "../core/clock.js";
import type { ToolContext } from "../core/tools.js";
import type { ButtonSpec, OutboundTarget } from "../core/types.js";
import { ENGLISH } from "../infra/i18n/index.js";
import type { Logger } from "../infra/log.js";
import type { Namespace } from "../infra/store/types.js";
import type { ApprovalsConfig } from "./config.js";
import { describeCall } from "./describe.js";
import type { ApprovalRequest, ApprovalRequests } from "./requests.js";
import { approvalPrompt, reasonText, type AskReason } from "./texts.js";

/** How often a waiting call looks at the store itself, in case the bus lost the decision (at most once). */
const RECHECK_MS = 5_000;
const GATED_RISKS: ReadonlySet<string> = new Set(["exec", "admin"]);

export interface ApprovalGateDeps {
  settings: ApprovalsConfig;
  requests: ApprovalRequests;
  /** "Always for this tool in this chat", by `always:<channel>:<chat>:<tool>`. */
  grants: Namespace<unknown>;
  messages: ButtonMessages;
  /** The owners' user ids on a channel (access.owners). */
  ownersOn: (channel: string) => string[];
  secrets: readonly string[];
  clock: Clock;
  log: Logger;
}

export class ApprovalGate implements ToolGate {
  /** Per turn (its disclosed-tools set is the turn's own): how often each call was made, for distinct ids. */
  private readonly occurrences = new WeakMap<object, Map<string, number>>();

  constructor(private readonly deps: ApprovalGateDeps) {}

  async admit({ tool, input, ctx }: GatedCall): Promise<GateVerdict> {
    const reason = this.reasonToAsk(tool.name, tool.riskOf?.(input) ?? tool.risk, ctx);
    if (!reason) return { run: true };
    const log = ctx.log.child({ tool: tool.name, traceId: ctx.traceId });
    try {
      if (await this.deps.grants.get(grantKey(ctx.channel, ctx.chatId, tool.name))) {
        return { run: true, note: { requestId: "-", decision: "always", by: "always for this tool in this chat" } };
      }
      const id = this.requestId(ctx, tool.name, input);
      const request = await this.requestFor(id, tool.name, input, reason, ctx, log);
      const decided = request.status === "pending" ? await this.wait(request, ctx) : request;
      if (decided === "aborted") return refused("aborted", `${tool.name} was cancelled while it waited for approval`, { requestId: id, decision: "denied", by: "cancelled" });
      return await this.verdictOf(decided, ctx);
    } catch (err) {
      log.error({ err }, "could not ask for approval; the call is refused");
      return refused("denied", `${tool.name} needs approval, which could not be asked for right now; it did not run.`, { requestId: "-", decision: "denied", by: "error" });
    }
  }

  /** Why this call waits for a person, or undefined when it runs directly. */
  private reasonToAsk(tool: string, risk: string, ctx: ToolContext): AskReason | undefined {
    const { mode, tools } = this.deps.settings;
    if (mode === "off" || (!GATED_RISKS.has(risk) && !tools.includes(tool))) return undefined;
    if (mode === "always") return { always: true };
    const sources = ctx.taint?.sources ?? [];
    return sources.length > 0 ? { sources } : undefined;
  }

  /** Stable across a resumed turn: the message, the session, the call, and which time in the turn it was made. */
  private requestId(ctx: ToolContext, tool: string, input: unknown): string {
    const call = `${tool}\n${stableJson(input)}`;
    const counts = this.occurrences.get(ctx.disclosedTools) ?? new Map<string, number>();
    this.occurrences.set(ctx.disclosedTools, counts);
    const nth = counts.get(call) ?? 0;
    counts.set(call, nth + 1);
    const origin = ctx.message?.id ?? ctx.traceId;
    return createHash("sha256").update(`${ctx.sessionKey}\n${origin}\n${nth}\n${call}`).digest("hex").slice(0, 12);
  }

  /** The stored request (a resumed turn's), or a new one, asked for in the chat. */
  private async requestFor(id: string, tool: string, input: unknown, asked: AskReason, ctx: ToolContext, log: Logger): Promise<ApprovalRequest> {
    const existing = await this.deps.requests.get(id);
    if (existing) {
      log.info({ requestId: id, status: existing.status }, "approval request found from before; not asked again");
      return existing;
    }
    const now = this.deps.clock.now();
    // Stored in English: the console and the logs read it.
    const reason = reasonText(asked, ENGLISH.t);
    const request: ApprovalRequest = {
      id,
      tool,
      shows: describeCall(tool, input, this.deps.secrets),
      reason,
      sessionKey: ctx.sessionKey,
      channel: ctx.channel,
      chatId: ctx.chatId,
      requester: { userId: ctx.senderId, ...(ctx.message?.sender.name !== undefined ? { name: ctx.message.sender.name } : {}) },
      createdAt: now,
      expiresAt: now + this.deps.settings.timeoutSeconds * 1000,
      status: "pending",
    };
    if (!(await this.deps.requests.create(request))) return (await this.deps.requests.get(id)) ?? request;
    await this.ask(request, asked, ctx);
    // Logged once it is out: the wait (and its timeout on the clock) starts right after, without another await.
    log.info({ requestId: id, reason, audit: "approval" }, "approval requested");
    return request;
  }

  private async ask(request: ApprovalRequest, reason: AskReason, ctx: ToolContext): Promise<void> {
    const speech = ctx.speech ?? ENGLISH;
    const { t } = speech;
    const owners = this.deps.ownersOn(ctx.channel);
    const direct = ctx.approval?.direct === true;
    const mayAlways = direct ? owners.filter((id) => id === ctx.senderId) : owners;
    const rows: ButtonSpec[][] = [
      [
        { label: t("approvals.button.once"), run: `/approve ${request.id}`, style: "primary" },
        { label: t("approvals.button.deny"), run: `/deny ${request.id}`, style: "danger" },
      ],
      ...(mayAlways.length > 0 ? [[{ label: t("approvals.button.always"), run: `/approve ${request.id} always`, userIds: mayAlways }]] : []),
    ];
    const text = approvalPrompt(request, reason, this.deps.settings.timeoutSeconds, speech);
    if (direct) {
      // A user id as the chat id reaches the user's direct chat (Telegram, Discord, Feishu open_id).
      const to: OutboundTarget = { channel: ctx.channel, chatId: ctx.senderId };
      await this.deps.messages.send(to, text, rows, { channel: ctx.channel, userIds: [ctx.senderId], chatType: "direct" });
      return;
    }
    const threadId = ctx.message?.chat.threadId;
    const to: OutboundTarget = { channel: ctx.channel, chatId: ctx.chatId, ...(threadId !== undefined ? { threadId } : {}) };
    const audience = { channel: ctx.channel, userIds: [...new Set([ctx.senderId, ...owners])], chatId: ctx.chatId, chatType: ctx.chatType, ...(threadId !== undefined ? { threadId } : {}) };
    const replyTo = ctx.message?.platformMessageId;
    await this.deps.messages.send(to, text, rows, audience, replyTo !== undefined ? { replyTo } : {});
  }

  /** Resolves with the decided request (a press, a typed answer, the console, the timeout) or "aborted". */
  private wait(request: ApprovalRequest, ctx: ToolContext): Promise<ApprovalRequest | "aborted"> {
    const { requests, clock, log } = this.deps;
    return new Promise((resolve) => {
      let done = false;
      const cancels: Array<() => void> = [];
      const finish = (result: ApprovalRequest | "aborted"): void => {
        if (done) return;
        done = true;
        for (const cancel of cancels) cancel();
        resolve(result);
      };
      const check = async (): Promise<void> => {
        try {
          const current = await requests.get(request.id);
          if (current && current.status !== "pending") finish(current);
        } catch (err) {
          log.warn({ err, requestId: request.id }, "could not read an approval request; looking again shortly");
        }
      };
      const recheck = (): void => {
        cancels.push(
          clock.setTimer(RECHECK_MS, () => {
            void check().finally(() => {
              if (!done) recheck();
            });
          }),
        );
      };
      const onAbort = (): void => finish("aborted");
      ctx.signal.addEventListener("abort", onAbort, { once: true });
      cancels.push(() => ctx.signal.removeEventListener("abort", onAbort));
      cancels.push(requests.onDecision(request.id, () => void check()));
      cancels.push(
        clock.setTimer(request.expiresAt - clock.now(), () => {
          void requests
            .decide(request.id, "timed_out", "timeout", clock.now())
            .catch((err: unknown) => log.warn({ err, requestId: request.id }, "could not record an approval's timeout"))
            .then(check);
        }),
      );
      recheck();
      if (ctx.signal.aborted) onAbort();
      void check();
    });
  }

  private async verdictOf(request: ApprovalRequest, ctx: ToolContext): Promise<GateVerdict> {
    const note: ApprovalNote = { requestId: request.id, decision: request.status === "pending" ? "denied" : request.status, by: request.decidedBy ?? "unknown" };
    if (request.status === "timed_out") {
      const reason = `timed out: nobody approved ${request.tool} within ${this.deps.settings.timeoutSeconds} s, so it did not run`;
      ctx.approval?.onTimeout?.(reason);
      return refused("timeout", `${reason}. Tell the user.`, note);
    }
    if (request.status !== "approved" && request.status !== "always") {
      return refused("denied", `denied by the user: ${request.tool} did not run. Tell the user; do not try it another way.`, note);
    }
    if (!(await this.deps.requests.claimRun(request.id))) {
      return refused("denied", `${request.tool} was approved once and has already run; it did not run again.`, note);
    }
    if (request.status === "always") await this.deps.grants.set(grantKey(request.channel, request.chatId, request.tool), true);
    return { run: true, note };
  }
}

function refused(code: "denied" | "timeout" | "aborted", reason: string, note: ApprovalNote): GateVerdict {
  return { run: false, code, reason, note };
}

export function grantKey(channel: string, chatId: string, tool: string): string {
  return `always:${channel}:${chatId}:${tool}`;
}

/** JSON with object keys sorted, so the same input always gives the same request id. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
