/**
 * Sums of a per-message measure (bytes, tokens) over a session's history, kept from call to call so that a turn
 * adds only its new messages: summing a history of 600 messages message by message, three times a turn, was one of
 * the costs that grew with a session's length. Relies on how a history changes: it grows at its end, or loses its
 * start (compaction). A sum is kept per first message object, with how many messages it covers and the last of
 * them; a history that does not continue that run (shorter, or another message at that place) is summed whole.
 */
import type { ModelMessage } from "ai";

interface Run {
  count: number;
  last: ModelMessage;
  sum: number;
}

export class HistorySums {
  readonly #runs = new WeakMap<ModelMessage, Run>();

  constructor(private readonly measure: (message: ModelMessage) => number) {}

  total(messages: readonly ModelMessage[]): number {
    const first = messages[0];
    if (first === undefined) return 0;
    const run = this.#runs.get(first);
    // A shorter history has no message where the run ended.
    const continues = run !== undefined && messages[run.count - 1] === run.last;
    let sum = continues ? run.sum : 0;
    for (let i = continues ? run.count : 0; i < messages.length; i++) sum += this.measure(messages[i]!);
    // A shorter history (a part of this one) leaves the run where it was.
    if (run === undefined || run.count <= messages.length) this.#runs.set(first, { count: messages.length, last: messages.at(-1)!, sum });
    return sum;
  }
}
