/**
 * DM pairing, kept in the store: an unknown user who writes in a direct chat gets a one-time code, and an owner
 * approves it (CLI or /pair), which makes the user a member of that channel. Codes are valid for an hour, each
 * channel holds at most three pending, and wrong codes pause approvals on that channel for a while.
 */
import { z } from "zod";
import type { ChannelName } from "../core/types.js";
import type { Namespace, Store } from "../infra/store/types.js";
import { generateCode, normalizeCode } from "./pairing-code.js";
import { WindowCounter } from "./window-counter.js";

export const CODE_TTL_MS = 60 * 60_000;
export const MAX_PENDING_PER_CHANNEL = 3;
export const MAX_FAILED_APPROVALS = 5;
export const FAILED_APPROVALS_WINDOW_MS = 15 * 60_000;

const pendingSchema = z.object({
  code: z.string(),
  userId: z.string(),
  chatId: z.string(),
  name: z.string().optional(),
  requestedAt: z.number(),
  expiresAt: z.number(),
});
const memberSchema = z.object({
  userId: z.string(),
  name: z.string().optional(),
  approvedAt: z.number(),
  approvedBy: z.string(),
});
const pendingListSchema = z.array(pendingSchema);
const memberTableSchema = z.record(z.string(), memberSchema);

type StoredPending = z.output<typeof pendingSchema>;
type StoredMember = z.output<typeof memberSchema>;
export type PendingPairing = StoredPending & { channel: ChannelName };
export type PairedMember = StoredMember & { channel: ChannelName };

export interface PairingRequester {
  channel: ChannelName;
  userId: string;
  chatId: string;
  name?: string;
}

export type PairingRequest =
  /** `issued`: a new code; `pending`: the user's earlier code, still valid. */
  | { status: "issued" | "pending"; code: string; expiresAt: Date }
  /** The channel already has the most pending codes it may hold. */
  | { status: "full" };

export type Approval =
  | { ok: true; member: PairedMember }
  | { ok: false; reason: "malformed" | "unknown" | "locked" };

export class PairingBook {
  private readonly records: Namespace<unknown>;
  private readonly failures: WindowCounter;

  constructor(
    private readonly store: Store,
    /** Every channel that may hold requests, for listings across channels. */
    readonly channelNames: readonly ChannelName[],
    private readonly now: () => number = Date.now,
  ) {
    this.records = store.namespace<unknown>("access");
    this.failures = new WindowCounter(store, "pairing-failures", FAILED_APPROVALS_WINDOW_MS, now);
  }

  async isApproved(channel: ChannelName, userId: string): Promise<boolean> {
    return (await this.memberTable(channel))[userId] !== undefined;
  }

  /** The user's pending code, a new one, or "full" when the channel has too many waiting. */
  async request(who: PairingRequester): Promise<PairingRequest> {
    return this.underLock(who.channel, async () => {
      const pending = await this.pendingList(who.channel);
      const earlier = pending.find((p) => p.userId === who.userId);
      if (earlier) return { status: "pending", code: earlier.code, expiresAt: new Date(earlier.expiresAt) };
      if (pending.length >= MAX_PENDING_PER_CHANNEL) return { status: "full" };
      const taken = new Set(pending.map((p) => p.code));
      let code = generateCode();
      while (taken.has(code)) code = generateCode();
      const now = this.now();
      const entry: StoredPending = {
        code,
        userId: who.userId,
        chatId: who.chatId,
        ...(who.name !== undefined ? { name: who.name } : {}),
        requestedAt: now,
        expiresAt: now + CODE_TTL_MS,
      };
      await this.savePending(who.channel, [...pending, entry]);
      return { status: "issued", code, expiresAt: new Date(entry.expiresAt) };
    });
  }

  /** Approves the pending request with `code` on `channel`; a wrong code counts toward the channel's pause. */
  async approve(channel: ChannelName, code: string, approvedBy: string): Promise<Approval> {
    const wanted = normalizeCode(code);
    if (wanted === undefined) return { ok: false, reason: "malformed" };
    if ((await this.failures.count(channel)) >= MAX_FAILED_APPROVALS) return { ok: false, reason: "locked" };
    const approved = await this.underLock(channel, async () => {
      const pending = await this.pendingList(channel);
      const match = pending.find((p) => p.code === wanted);
      if (!match) return undefined;
      const member: StoredMember = {
        userId: match.userId,
        ...(match.name !== undefined ? { name: match.name } : {}),
        approvedAt: this.now(),
        approvedBy,
      };
      const members = await this.memberTable(channel);
      await this.records.set(membersKey(channel), { ...members, [member.userId]: member });
      await this.savePending(channel, pending.filter((p) => p !== match));
      return member;
    });
    if (approved) return { ok: true, member: { ...approved, channel } };
    await this.failures.hit(channel);
    return { ok: false, reason: "unknown" };
  }

  /** Drops the pending request with `code` on `channel` without approving it; the request, or undefined. */
  async deny(channel: ChannelName, code: string): Promise<PendingPairing | undefined> {
    const wanted = normalizeCode(code);
    if (wanted === undefined) return undefined;
    return this.underLock(channel, async () => {
      const pending = await this.pendingList(channel);
      const match = pending.find((p) => p.code === wanted);
      if (!match) return undefined;
      await this.savePending(channel, pending.filter((p) => p !== match));
      return { ...match, channel };
    });
  }

  /** Removes the user's approval and any pending code; false when there was neither. */
  async revoke(channel: ChannelName, userId: string): Promise<boolean> {
    return this.underLock(channel, async () => {
      const members = await this.memberTable(channel);
      const pending = await this.pendingList(channel);
      const remaining = pending.filter((p) => p.userId !== userId);
      const wasMember = members[userId] !== undefined;
      if (wasMember) {
        delete members[userId];
        await this.records.set(membersKey(channel), members);
      }
      if (remaining.length !== pending.length) await this.savePending(channel, remaining);
      return wasMember || remaining.length !== pending.length;
    });
  }

  /** Unexpired pending requests of one channel or of all, oldest first. */
  async pending(channel?: ChannelName): Promise<PendingPairing[]> {
    const lists = await Promise.all(
      this.channelsOf(channel).map(async (c) => (await this.pendingList(c)).map((p) => ({ ...p, channel: c }))),
    );
    return lists.flat().sort((a, b) => a.requestedAt - b.requestedAt);
  }

  /** Paired members of one channel or of all, in order of approval. */
  async members(channel?: ChannelName): Promise<PairedMember[]> {
    const tables = await Promise.all(
      this.channelsOf(channel).map(async (c) => Object.values(await this.memberTable(c)).map((m) => ({ ...m, channel: c }))),
    );
    return tables.flat().sort((a, b) => a.approvedAt - b.approvedAt);
  }

  private channelsOf(channel: ChannelName | undefined): readonly ChannelName[] {
    return channel ? [channel] : this.channelNames;
  }

  private underLock<T>(channel: ChannelName, fn: () => Promise<T>): Promise<T> {
    return this.store.coordinator.withLock(`access:pairing:${channel}`, fn);
  }

  private async pendingList(channel: ChannelName): Promise<StoredPending[]> {
    const parsed = pendingListSchema.safeParse((await this.records.get(pendingKey(channel))) ?? []);
    // Pending codes are short-lived: an unreadable list costs a user one new code, nothing more.
    if (!parsed.success) return [];
    const now = this.now();
    return parsed.data.filter((p) => p.expiresAt > now);
  }

  private async savePending(channel: ChannelName, pending: StoredPending[]): Promise<void> {
    if (pending.length === 0) {
      await this.records.delete(pendingKey(channel));
      return;
    }
    const lastExpiry = Math.max(...pending.map((p) => p.expiresAt));
    await this.records.set(pendingKey(channel), pending, Math.max(1, lastExpiry - this.now()));
  }

  private async memberTable(channel: ChannelName): Promise<Record<string, StoredMember>> {
    const parsed = memberTableSchema.safeParse((await this.records.get(membersKey(channel))) ?? {});
    // Approvals are not to be dropped silently: fail loudly, naming the record.
    if (!parsed.success) throw new Error(`The ${channel} pairing approvals in the store are unreadable: ${parsed.error.message}`);
    return parsed.data;
  }
}

function pendingKey(channel: ChannelName): string {
  return `pairing:pending:${channel}`;
}

function membersKey(channel: ChannelName): string {
  return `pairing:members:${channel}`;
}

/** The channel called `name` (any case) among `channels`, or undefined. */
export function channelNamed(name: string, channels: readonly ChannelName[]): ChannelName | undefined {
  return channels.find((channel) => channel === name.toLowerCase());
}
