/**
 * A session history's request form for an OpenAI-compatible endpoint, each message serialized once (see
 * request-wire.ts). Converted by the provider's own conversion (`convertToOpenAICompatibleChatMessages`, the
 * function its getArgs calls on the whole prompt), message by message: it keeps no state between messages.
 */
import { convertToOpenAICompatibleChatMessages } from "@ai-sdk/openai-compatible/internal";
import type { PromptMessage } from "./model-call.js";

/**
 * The first `count` messages' request forms, comma-separated: what goes where the placeholder was in the messages
 * array. Kept per history array, which grows at its end from turn to turn, so a turn serializes only its new
 * messages. In a buffer rather than a string: a string of the whole history kept from turn to turn would be copied
 * by every young-generation GC it lives through.
 */
export function historyForms(history: readonly PromptMessage[], count: number): Buffer {
  let run = runs.get(history);
  if (run === undefined) {
    run = new SerializedRun();
    runs.set(history, run);
  }
  while (run.count < count) run.append(history[run.count]!);
  return run.bytes(count);
}

const runs = new WeakMap<readonly PromptMessage[], SerializedRun>();

/** Messages' request forms, comma-separated, in a buffer grown in place (doubling). */
class SerializedRun {
  // Its own memory, not a slice of the shared pool small buffers come from (it is kept for the session); grown
  // from the size first needed.
  #buffer = Buffer.allocUnsafeSlow(0);
  /** Where each message's form ends in the buffer. */
  readonly #ends: number[] = [];

  get count(): number {
    return this.#ends.length;
  }

  append(message: PromptMessage): void {
    // One prompt message can be several in the request (tool results).
    const form = convertToOpenAICompatibleChatMessages([message]).map((converted) => JSON.stringify(converted)).join(",");
    let length = this.#ends.at(-1) ?? 0;
    if (form !== "") {
      const comma = length > 0 ? 1 : 0;
      const needed = length + comma + Buffer.byteLength(form);
      if (needed > this.#buffer.length) {
        const grown = Buffer.allocUnsafeSlow(Math.max(needed, 2 * this.#buffer.length));
        this.#buffer.copy(grown, 0, 0, length);
        this.#buffer = grown;
      }
      if (comma) this.#buffer[length++] = COMMA;
      length += this.#buffer.write(form, length);
    }
    this.#ends.push(length);
  }

  /** The first `count` messages' forms; later appends do not change them. */
  bytes(count: number): Buffer {
    return this.#buffer.subarray(0, count === 0 ? 0 : this.#ends[count - 1]);
  }
}

const COMMA = 0x2c;
