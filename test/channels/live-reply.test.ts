/**
 * The live reply's throttle on a manual clock: when it shows the growing text, how it spaces the platform calls,
 * and how it waits out a rate limit, without any real time passing.
 */
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { DEFAULT_THROTTLE, RateLimitedError, ThrottledLiveReply, type Presenter } from "../../src/channels/live-reply.js";
import type { SentMessage } from "../../src/core/types.js";
import { ManualClock } from "../helpers/clock.js";
import { silentLog } from "../scheduler/helpers.js";
import { whenEmitted } from "../helpers/wait.js";

const START = Date.parse("2026-03-28T10:00:00Z");

/** Records what it was asked to show and when; `refuseNext` makes the next show a rate limit. */
class RecordingPresenter implements Presenter {
  readonly shown: Array<{ text: string; at: number }> = [];
  readonly finished: string[] = [];
  readonly calls = new EventEmitter();
  refuseNext: number | undefined;

  constructor(private readonly clock: ManualClock) {}

  async show(text: string): Promise<void> {
    const refusal = this.refuseNext;
    this.refuseNext = undefined;
    this.shown.push({ text, at: this.clock.now() });
    this.calls.emit("call");
    if (refusal !== undefined) throw new RateLimitedError(refusal);
  }

  async finish(text: string): Promise<SentMessage[]> {
    this.finished.push(text);
    return [{ messageId: "1", sentAt: new Date(this.clock.now()) }];
  }

  async cancel(): Promise<void> {}

  /** Resolves once `count` shows were asked for, and their calls have returned. */
  async shows(count: number): Promise<void> {
    await whenEmitted(() => this.shown.length >= count, this.calls, "call", 1_000, () => `${count} shows, saw ${this.shown.length}`);
    // The throttle's bookkeeping after the call (the end of the call, the next timer) runs in the same turn of the loop.
    await Promise.resolve();
  }
}

function setup() {
  const clock = new ManualClock(START);
  const presenter = new RecordingPresenter(clock);
  const live = new ThrottledLiveReply(presenter, silentLog, DEFAULT_THROTTLE, clock);
  return { clock, presenter, live };
}

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(" ");

describe("the live reply's throttle", () => {
  it("shows nothing of a reply finished within the first delay; the reply goes out whole", async () => {
    const { clock, presenter, live } = setup();
    live.update("A quick answer.");
    clock.advance(DEFAULT_THROTTLE.firstDelayMs - 1);
    expect(await live.finish("A quick answer.")).toHaveLength(1);
    expect(presenter.shown).toHaveLength(0);
    expect(presenter.finished).toEqual(["A quick answer."]);
    expect(clock.pendingTimers).toBe(0);
  });

  it("shows the text after the first delay, then at most once an interval, the latest text each time", async () => {
    const { clock, presenter, live } = setup();
    live.update(words(10));
    clock.advance(DEFAULT_THROTTLE.firstDelayMs);
    await presenter.shows(1);
    expect(presenter.shown[0]).toEqual({ text: words(10), at: START + DEFAULT_THROTTLE.firstDelayMs });

    for (let n = 11; n <= 40; n++) {
      live.update(words(n));
      clock.advance(100);
      if (presenter.shown.length < 4 && clock.now() - presenter.shown.at(-1)!.at >= DEFAULT_THROTTLE.intervalMs) await presenter.shows(presenter.shown.length + 1);
    }
    const gaps = presenter.shown.slice(1).map((s, i) => s.at - presenter.shown[i]!.at);
    expect(gaps.length).toBeGreaterThanOrEqual(2);
    expect(gaps.every((gap) => gap === DEFAULT_THROTTLE.intervalMs)).toBe(true);
    await live.finish(words(40));
    expect(presenter.finished).toEqual([words(40)]);
  });

  it("waits out a rate limit before the next call, however much text came meanwhile", async () => {
    const { clock, presenter, live } = setup();
    presenter.refuseNext = 3_000;
    live.update(words(10));
    clock.advance(DEFAULT_THROTTLE.firstDelayMs);
    await presenter.shows(1);

    live.update(words(50));
    clock.advance(2_999);
    expect(presenter.shown).toHaveLength(1);
    clock.advance(1);
    await presenter.shows(2);
    expect(presenter.shown[1]).toEqual({ text: words(50), at: START + DEFAULT_THROTTLE.firstDelayMs + 3_000 });
  });
});
