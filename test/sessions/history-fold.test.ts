import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { HistoryFold } from "../../src/sessions/history-fold.js";

const message = (text: string): ModelMessage => ({ role: "user", content: text });
const whole = (messages: readonly ModelMessage[]) => messages.reduce((sum, m) => sum + (m.content as string).length, 0);

describe("a sum folded over a history, kept from call to call", () => {
  function counted() {
    const measured: string[] = [];
    const sums = new HistoryFold(
      () => 0,
      (sum, m) => {
        measured.push(m.content as string);
        return sum + (m.content as string).length;
      },
    );
    return { sums, measured };
  }

  it("measures only the messages added since the last call while the history grows at its end", () => {
    const { sums, measured } = counted();
    const history = [message("a"), message("bb")];
    expect(sums.of(history)).toBe(3);
    history.push(message("ccc"), message("dddd"));
    expect(sums.of(history.slice())).toBe(10);
    expect(measured).toEqual(["a", "bb", "ccc", "dddd"]);
  });

  it("sums afresh a history that lost its start, or went on differently, and leaves the run for a shorter one", () => {
    const { sums, measured } = counted();
    const history = ["a", "bb", "ccc", "dddd"].map(message);
    expect(sums.of(history)).toBe(10);
    // A part of it (as compaction measures single messages) is summed apart...
    expect(sums.of(history.slice(0, 2))).toBe(3);
    measured.length = 0;
    // ...and the run still serves the whole history.
    const grown = [...history, message("eeeee")];
    expect(sums.of(grown)).toBe(15);
    expect(measured).toEqual(["eeeee"]);
    // Compacted: a new first message.
    expect(sums.of(grown.slice(2))).toBe(whole(grown.slice(2)));
    // The same first message, but another message where the run ended.
    const other = [...history.slice(0, 3), message("x"), message("yy")];
    expect(sums.of(other)).toBe(whole(other));
    expect(sums.of([])).toBe(0);
  });
});
