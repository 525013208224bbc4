/**
 * A value folded over a session's history message by message (the budget's byte and token sums, the agent's scan
 * for the part it can splice), kept from call to call so that a turn folds in only its new messages: walking a
 * history of 600 messages message by message, several times a turn, was one of the costs that grew with a session's
 * length. Relies on how a history changes: it grows at its end, or loses its start (compaction). A fold is kept per
 * first message object, with how many messages it covers and the last of them. A history that does not continue it
 * (shorter, or another message where it ended) is folded whole; only one at least as long replaces the kept fold.
 * `step` may change the state it is given and return it: a kept state is only ever carried further.
 */
import type { ModelMessage } from "ai";

interface Run<S> {
  count: number;
  last: ModelMessage;
  state: S;
}

export class HistoryFold<S> {
  readonly #runs = new WeakMap<ModelMessage, Run<S>>();

  constructor(
    private readonly start: () => S,
    private readonly step: (state: S, message: ModelMessage, index: number) => S,
  ) {}

  of(messages: readonly ModelMessage[]): S {
    const first = messages[0];
    if (first === undefined) return this.start();
    const run = this.#runs.get(first);
    // A shorter history has no message where the run ended.
    const continues = run !== undefined && messages[run.count - 1] === run.last;
    let state = continues ? run.state : this.start();
    for (let i = continues ? run.count : 0; i < messages.length; i++) state = this.step(state, messages[i]!, i);
    if (run === undefined || run.count <= messages.length) this.#runs.set(first, { count: messages.length, last: messages.at(-1)!, state });
    return state;
  }
}
