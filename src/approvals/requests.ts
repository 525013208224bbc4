/**
 * Approval requests in the store, so that a request outlives the process that made it: a turn resumed after a
 * restart finds its request still pending (or answered meanwhile), and an answer given on any replica is taken
 * once (the store's claim) and announced on the bus to the replica whose turn waits for it.
 */
import { z } from "zod";
import type { Logger } from "../infra/log.js";
import { approvalDecisions } from "../infra/metrics.js";
import type { Store } from "../infra/store/types.js";

export const DECISIONS = ["approved", "always", "denied", "timed_out"] as const;
export type Decision = (typeof DECISIONS)[number];

const requestSchema = z.object({
  id: z.string(),
  tool: z.string(),
  /** What will run, redacted: the command line, the URL, the script and its arguments. */
  shows: z.string(),
  /** Why it asks ("the turn took in a web page", "approvals.mode is always"). */
  reason: z.string(),
  sessionKey: z.string(),
  /** The chat the call belongs to, where "Always for this tool in this chat" applies. */
  channel: z.string(),
  chatId: z.string(),
  /** Whose turn it is: they (or an owner) may answer. */
  requester: z.object({ userId: z.string(), name: z.string().optional() }),
  createdAt: z.number(),
  expiresAt: z.number(),
  status: z.enum(["pending", ...DECISIONS]),
  decidedBy: z.string().optional(),
  decidedAt: z.number().optional(),
});
export type ApprovalRequest = z.output<typeof requestSchema>;

/** Records outlive their decision this long (a resumed turn finds the answer; the console shows it). */
const KEPT_MS = 24 * 60 * 60_000;
const DECISIONS_KEPT = 100;
const TOPIC = "approvals:decided";
const PENDING = "pending";
const DECIDED = "decided";

export class ApprovalRequests {
  private readonly records;
  private readonly pendingSet;
  private readonly decisions;
  private readonly listeners = new Map<string, Set<() => void>>();
  private readonly subscribed: Promise<(() => Promise<void>) | undefined>;

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
  ) {
    this.records = store.namespace<unknown>("approvals");
    this.pendingSet = store.sets<unknown>("approvals");
    this.decisions = store.lists<unknown>("approvals");
    this.subscribed = store.bus.subscribe(TOPIC, (id) => this.wake(id)).catch((err: unknown) => {
      log.error({ err }, "could not subscribe to approval decisions; waiting turns check the store every few seconds instead");
      return undefined;
    });
  }

  async get(id: string): Promise<ApprovalRequest | undefined> {
    const parsed = requestSchema.safeParse(await this.records.get(keyOf(id)));
    return parsed.success ? parsed.data : undefined;
  }

  /** Stores a new pending request; false when one with its id exists (a resumed turn asking again). */
  async create(request: ApprovalRequest): Promise<boolean> {
    if (await this.get(request.id)) return false;
    if (!(await this.pendingSet.add(PENDING, request.id, request, request.expiresAt - request.createdAt + KEPT_MS))) return false;
    await this.records.set(keyOf(request.id), request, request.expiresAt - request.createdAt + KEPT_MS);
    return true;
  }

  /** The requests still waiting for an answer, oldest first. */
  async pending(): Promise<ApprovalRequest[]> {
    const entries = await this.pendingSet.all(PENDING);
    return entries.flatMap((entry) => {
      const parsed = requestSchema.safeParse(entry);
      return parsed.success && parsed.data.status === "pending" ? [parsed.data] : [];
    });
  }

  /** The latest decisions, oldest first (the console's record). */
  async recentDecisions(count = DECISIONS_KEPT): Promise<ApprovalRequest[]> {
    return (await this.decisions.tail(DECIDED, count)).flatMap((entry) => {
      const parsed = requestSchema.safeParse(entry);
      return parsed.success ? [parsed.data] : [];
    });
  }

  /**
   * Decides a pending request, once across replicas and double presses: the decided request (timed out when the
   * answer came too late), or undefined when it was decided already (or is unknown).
   */
  async decide(id: string, answer: Decision, answeredBy: string, at: number): Promise<ApprovalRequest | undefined> {
    const request = await this.get(id);
    if (request?.status !== "pending") return undefined;
    // Past its time a request counts as timed out, even before the waiting turn's timer recorded it.
    const late = request.expiresAt <= at;
    const [decision, by] = late ? (["timed_out", "timeout"] as const) : [answer, answeredBy];
    if (!(await this.store.coordinator.setIfAbsent(`approval:${id}`, KEPT_MS))) return undefined;
    const decided: ApprovalRequest = { ...request, status: decision, decidedBy: by, decidedAt: at };
    await this.records.set(keyOf(id), decided, KEPT_MS);
    await this.pendingSet.remove(PENDING, id);
    await this.decisions.push(DECIDED, decided, DECISIONS_KEPT);
    approvalDecisions.inc({ decision });
    this.log.info({ requestId: id, tool: request.tool, decision, by, sessionKey: request.sessionKey, audit: "approval" }, "approval decided");
    this.wake(id);
    await this.store.bus.publish(TOPIC, id).catch((err: unknown) => this.log.warn({ err, requestId: id }, "could not announce an approval decision"));
    return decided;
  }

  /** The one run an approval buys: true for the first caller only, across replicas and resumed turns. */
  claimRun(id: string): Promise<boolean> {
    return this.store.coordinator.setIfAbsent(`approval-run:${id}`, KEPT_MS);
  }

  /** Calls `listener` when the request may have been decided (here or on another replica); returns its removal. */
  onDecision(id: string, listener: () => void): () => void {
    const set = this.listeners.get(id) ?? new Set();
    set.add(listener);
    this.listeners.set(id, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(id);
    };
  }

  async close(): Promise<void> {
    await (await this.subscribed)?.().catch((err: unknown) => this.log.warn({ err }, "could not unsubscribe from approval decisions"));
  }

  private wake(id: string): void {
    for (const listener of this.listeners.get(id) ?? []) listener();
  }
}

function keyOf(id: string): string {
  return `request:${id}`;
}
