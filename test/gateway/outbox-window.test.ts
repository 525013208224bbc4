/**
 * The outbox and a send that may have arrived on a platform that deduplicates repeats only for a while (Discord's
 * nonce): repeated within that window, given up before its end, so a late repeat never posts twice.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SendError } from "../../src/core/send-error.js";
import type { SentMessage } from "../../src/core/types.js";
import { Outbox, type OutboxEntry } from "../../src/gateway/outbox.js";
import { createStore } from "../../src/infra/store/index.js";
import type { Store } from "../../src/infra/store/types.js";
import { captureLog } from "../helpers/captured-log.js";
import { silentLog } from "../scheduler/helpers.js";

const WINDOW_MS = 120_000;
/** No repeat starts this close to the window's end (send-error.ts). */
const MARGIN_MS = 30_000;
const T0 = 1_000_000;
const timing = { retryForMs: 600_000, baseDelayMs: 2_000, maxDelayMs: 60_000 };
const entry = { to: { channel: "discord", chatId: "c1" }, text: "hello", fromPart: 0, idempotencyKey: "reply:1", lastError: "no answer" };
const sentPart = { messageId: "m0", sentAt: new Date(T0) };

let store: Store | undefined;
let outbox: Outbox | undefined;
afterEach(async () => {
  await outbox?.stop();
  await store?.close();
  store = outbox = undefined;
});

async function outboxWith(attempt: (now: number, entry: OutboxEntry) => never) {
  store = await createStore({ url: null, dataDir: await mkdtemp(join(tmpdir(), "sb-outbox-window-")), log: silentLog });
  const clock = { now: T0 };
  const { log, logs } = captureLog([]);
  const attemptsAt: number[] = [];
  outbox = new Outbox(store, log, timing, async (e) => {
    attemptsAt.push(clock.now);
    attempt(clock.now, e);
  }, () => clock.now);
  return { outbox, clock, logs, attemptsAt };
}

const mayHaveArrived = (now: number, sent: SentMessage[] = []) =>
  new SendError("Discord message 1 of 1 to channel c1 failed: other side closed", { kind: "uncertain" }, { repeatableUntil: now + WINDOW_MS, sent });
const unavailable = (sent: SentMessage[] = []) => new SendError("Discord message 2 of 2 to channel c1 failed: HTTP 503", { kind: "unavailable" }, { sent });

/** Runs the outbox's attempts in order of their due times until it is empty or `steps` ran out. */
async function runDue(o: Outbox, clock: { now: number }, steps = 200): Promise<void> {
  for (let step = 0; step < steps && (await o.pending()).length > 0; step++) {
    clock.now = Math.max(clock.now, (await o.pending())[0]!.nextAt);
    await o.drain();
  }
}

describe("outbox: a send that may have arrived", () => {
  it("is repeated while the platform deduplicates it, then given up once, untried, before the window ends", async () => {
    const { outbox, clock, logs, attemptsAt } = await outboxWith((now) => {
      throw mayHaveArrived(now);
    });
    await outbox.add({ ...entry, repeatableUntil: T0 + WINDOW_MS });
    await runDue(outbox, clock);
    expect(await outbox.pending()).toEqual([]);
    expect(attemptsAt.length).toBeGreaterThan(2);
    // The window is the first one's: later attempts that may have arrived do not extend it.
    expect(attemptsAt.every((at) => at < T0 + WINDOW_MS - MARGIN_MS)).toBe(true);
    const givenUp = logs.filter((r) => r.msg.includes("given up"));
    expect(givenUp).toEqual([expect.objectContaining({ msg: "reply may have arrived and the platform no longer deduplicates a repeat; given up", kind: "uncertain" })]);
  });

  it("keeps the window of the first attempt that may have arrived through later plain failures, also at the start's drain", async () => {
    let calls = 0;
    const { outbox, clock, attemptsAt } = await outboxWith((now) => {
      calls += 1;
      throw calls === 2 ? mayHaveArrived(now) : unavailable();
    });
    await outbox.add(entry);
    clock.now = (await outbox.pending())[0]!.nextAt;
    await outbox.drain();
    expect((await outbox.pending())[0]!.repeatableUntil).toBeUndefined();
    clock.now = (await outbox.pending())[0]!.nextAt;
    await outbox.drain();
    const until = clock.now + WINDOW_MS;
    expect((await outbox.pending())[0]!.repeatableUntil).toBe(until);
    clock.now = (await outbox.pending())[0]!.nextAt;
    await outbox.drain();
    expect((await outbox.pending())[0]!.repeatableUntil).toBe(until);
    clock.now = until - MARGIN_MS;
    await outbox.start();
    expect(await outbox.pending()).toEqual([]);
    expect(attemptsAt).toHaveLength(3);
  });

  it("drops the window once the part that may have arrived is confirmed, and goes on with the rest", async () => {
    let calls = 0;
    const { outbox, clock, attemptsAt } = await outboxWith((now) => {
      calls += 1;
      // The first attempt may have posted part 0; the second confirms it (Discord answers its nonce) and fails on part 1.
      throw calls === 1 ? mayHaveArrived(now) : unavailable(calls === 2 ? [sentPart] : []);
    });
    await outbox.add(entry);
    await runDue(outbox, clock, 3);
    const [waiting] = await outbox.pending();
    expect(waiting).toMatchObject({ fromPart: 1 });
    expect(waiting!.repeatableUntil).toBeUndefined();
    await runDue(outbox, clock);
    expect(Math.max(...attemptsAt)).toBeGreaterThan(T0 + WINDOW_MS);
  });
});
