/**
 * The msg_seq values of QQ replies. The same msg_id + msg_seq is QQ's deduplication key, and a message takes at
 * most 5 replies: a send takes its values before posting, by adding to the message's tally only while the sum stays
 * within the five, checked and added in one step (on Redis, across replicas), so two sends never hold the same one.
 * The values a send took are kept under its idempotency key, part by part, so every attempt of it posts a part with
 * the same value and QQ deduplicates a repeat; parts an attempt has beyond what the send holds (a turn run again
 * with a longer answer) take new values. A value whose post fails stays taken: QQ needs them distinct, not
 * consecutive.
 */
import { z } from "zod";
import type { Store } from "../../infra/store/types.js";

export const MAX_REPLIES = 5;
/** How long QQ accepts replies to a message, in minutes. */
export const REPLY_WINDOW_MINUTES = { direct: 60, group: 5 } as const;
/** How long the store keeps a message's tally and a send's values: the longest window in which QQ takes a reply. */
export const KEEP_MS = Math.max(...Object.values(REPLY_WINDOW_MINUTES)) * 60_000;
/** The field of a message's reply tally that counts the msg_seq values taken: the highest taken so far. */
const TAKEN = "taken";

/** What the store keeps of a send: the message it answers and each part's msg_seq, by part index. */
const keptSchema = z.union([
  z.object({ msgId: z.string(), seqs: z.record(z.string(), z.number().int().positive()) }),
  // As kept before the count was: only its first part's value is surely the send's own.
  z.object({ msgId: z.string(), first: z.number().int().positive(), from: z.number().int().nonnegative() }).transform(({ msgId, first, from }) => ({ msgId, seqs: { [from]: first } })),
]);

/**
 * The values a send holds on the message it answers, and how many parts its answer is laid out in. `fresh`: parts
 * whose value this attempt took, so QQ cannot have seen it from this send: a duplicate of one is another sender's.
 */
export interface Held {
  msgId: string;
  parts: number;
  seqs: Map<number, number>;
  fresh: Set<number>;
  key: string | undefined;
}

/** A fresh msg_seq QQ has seen: a sender that does not count in the store (an older version) posted it. */
export class SeqTaken extends Error {
  override readonly name = "SeqTaken";
}

export class ReplySeqs {
  constructor(
    private readonly store: Store,
    private readonly appId: string,
  ) {}

  /**
   * Values for parts `from` on of an answer of `wanted` parts, on the message `msgIdOf` names unless an earlier
   * attempt of the send (same `idempotencyKey`) chose one. The answer is laid out in as many parts as the send holds
   * values for or can take: when a first try to take them all is refused, the tally's sum says how many are left,
   * and the next try takes only those; each refusal means another send took some, so the tries end. `parts` is
   * `from` or less when none is left for part `from`.
   */
  async hold(idempotencyKey: string | undefined, msgIdOf: () => Promise<string>, from: number, wanted: number): Promise<Held> {
    const key = idempotencyKey === undefined ? undefined : `qq-seqs:${this.appId}:${idempotencyKey}`;
    const kept = key === undefined ? undefined : keptSchema.safeParse(await this.kept().get(key)).data;
    const msgId = kept?.msgId ?? (await msgIdOf());
    const seqs = new Map(Object.entries(kept?.seqs ?? {}).map(([part, seq]) => [Number(part), seq]));
    let run = 0;
    while (seqs.has(from + run)) run += 1;
    let left = MAX_REPLIES;
    for (;;) {
      const parts = Math.min(wanted, MAX_REPLIES, from + run + left);
      const missing = Array.from({ length: Math.max(0, parts - from) }, (_, i) => from + i).filter((part) => !seqs.has(part));
      if (missing.length === 0) return { msgId, parts, seqs, fresh: new Set(), key };
      const { added, taken } = await this.take(msgId, missing.length);
      if (!added) {
        left = MAX_REPLIES - taken;
        continue;
      }
      missing.forEach((part, i) => seqs.set(part, taken - missing.length + 1 + i));
      const held = { msgId, parts, seqs, fresh: new Set(missing), key };
      await this.keep(held);
      return held;
    }
  }

  /** A new value for `part`, whose fresh one another sender posted; false when none is left. */
  async replace(held: Held, part: number): Promise<boolean> {
    const { added, taken } = await this.take(held.msgId, 1);
    if (!added) return false;
    held.seqs.set(part, taken);
    held.fresh.add(part);
    await this.keep(held);
    return true;
  }

  /** Adds `count` to the message's tally if the sum stays within the five; the sum after, or the sum that refused it. */
  private async take(msgId: string, count: number): Promise<{ added: boolean; taken: number }> {
    const tally = `qq-replies:${this.appId}:${msgId}`;
    const { added, sums } = await this.store
      .tallies("meta")
      .addWithin([{ key: tally, amounts: { [TAKEN]: count }, ttlMs: KEEP_MS }], [{ key: tally, field: TAKEN, limit: MAX_REPLIES - count + 1 }]);
    return { added, taken: sums[0] ?? 0 };
  }

  /** Written before the parts are posted: an attempt after a crash finds the values this one may have posted with. */
  private async keep(held: Held): Promise<void> {
    if (held.key !== undefined) await this.kept().set(held.key, { msgId: held.msgId, seqs: Object.fromEntries(held.seqs) }, KEEP_MS);
  }

  private kept() {
    return this.store.namespace<unknown>("meta");
  }
}
