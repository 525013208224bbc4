/**
 * The outbox and a send that may have arrived on a platform that deduplicates repeats only for a while (Discord's
 * nonce): repeated within that window, given up after it, so a late repeat never posts twice.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SendError } from "../../src/core/send-error.js";
import { Outbox, type OutboxEntry } from "../../src/gateway/outbox.js";
import { createStore } from "../../src/infra/store/index.js";
import type { Store } from "../../src/infra/store/types.js";
import { captureLog } from "../helpers/captured-log.js";
import { silentLog } from "../scheduler/helpers.js";

const WINDOW_MS = 120_000;
const timing = { retryForMs: 600_000, baseDelayMs: 2_000, maxDelayMs: 60_000 };
const entry = { to: { channel: "discord", chatId: "c1" }, text: "hello", fromPart: 0, idempotencyKey: "reply:1", lastError: "no answer" };
const mayHaveArrived = () => new SendError("Discord message 1 of 1 to channel c1 failed: other side closed", { kind: "uncertain", repeatableForMs: WINDOW_MS });

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

async function outboxWith(sendOnce: (entry: OutboxEntry) => Promise<never>) {
  store = await createStore({ url: null, dataDir: await mkdtemp(join(tmpdir(), "sb-outbox-window-")), log: silentLog });
  const clock = { now: 1_000_000 };
  const { log, logs } = captureLog([]);
  const outbox = new Outbox(store, log, timing, sendOnce, () => clock.now);
  return { outbox, clock, logs };
}

describe("outbox: a send that may have arrived", () => {
  it("is repeated while the platform deduplicates it, then given up once, untried", async () => {
    const attemptsAt: number[] = [];
    const { outbox, clock, logs } = await outboxWith(async () => {
      attemptsAt.push(clock.now);
      throw mayHaveArrived();
    });
    await outbox.add({ ...entry, repeatableForMs: WINDOW_MS - 5_000 });
    const until = 1_000_000 + WINDOW_MS - 5_000;
    expect((await outbox.pending())[0]!.repeatableUntil).toBe(until);

    for (let step = 0; step < 200 && (await outbox.pending()).length > 0; step++) {
      clock.now = (await outbox.pending())[0]!.nextAt;
      await outbox.drain();
    }
    expect(await outbox.pending()).toEqual([]);
    expect(attemptsAt.length).toBeGreaterThan(2);
    expect(attemptsAt.every((at) => at < until)).toBe(true);
    const givenUp = logs.filter((r) => r.msg.includes("given up"));
    expect(givenUp).toEqual([expect.objectContaining({ msg: "reply may have arrived and the platform no longer deduplicates a repeat; given up", kind: "uncertain" })]);
  });

  it("gets its window from the first attempt that may have arrived, also after an attempt that plainly failed", async () => {
    let calls = 0;
    const { outbox, clock } = await outboxWith(async () => {
      calls += 1;
      throw calls === 1 ? new SendError("HTTP 500", { kind: "unavailable" }) : mayHaveArrived();
    });
    await outbox.add(entry);
    expect((await outbox.pending())[0]!.repeatableUntil).toBeUndefined();
    clock.now = (await outbox.pending())[0]!.nextAt;
    await outbox.drain();
    expect((await outbox.pending())[0]!.repeatableUntil).toBeUndefined();
    const second = (await outbox.pending())[0]!.nextAt;
    clock.now = second;
    await outbox.drain();
    expect((await outbox.pending())[0]!.repeatableUntil).toBe(second + WINDOW_MS);
    clock.now = second + WINDOW_MS;
    await outbox.start();
    expect(await outbox.pending()).toEqual([]);
    expect(calls).toBe(2);
    await outbox.stop();
  });
});
