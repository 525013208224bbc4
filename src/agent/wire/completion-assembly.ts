/**
 * A chat completion put together from the chunks an OpenAI-compatible endpoint streams, for a plain answer: text,
 * reasoning before it, the finish reason and usage. Anything else (tool calls, an error event, content that is not
 * a string, reasoning after the text has begun, a chunk that is not JSON, no finish reason) makes the answer one
 * for the provider's own stream parser: `completion()` is then undefined. The text is passed on as it arrives
 * either way.
 */

/** What of a chunk is read here; the rest of it is left to the provider, as its stream parser leaves it. */
interface Chunk {
  id?: unknown;
  created?: unknown;
  model?: unknown;
  error?: unknown;
  usage?: unknown;
  choices?: Array<{ delta?: Delta | null; finish_reason?: unknown }>;
}

interface Delta {
  content?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
  tool_calls?: unknown[] | null;
  extra_content?: unknown;
}

/** The non-streamed response's shape, as the provider's doGenerate reads it. */
export interface AssembledCompletion {
  id?: unknown;
  created?: unknown;
  model?: unknown;
  object: "chat.completion";
  choices: [{ index: 0; message: { role: "assistant"; content: string | null; reasoning_content?: string }; finish_reason: string | null }];
  usage?: unknown;
}

export class CompletionAssembly {
  #text = "";
  #reasoning = "";
  #finishReason: string | null = null;
  #usage: unknown;
  readonly #metadata: Pick<Chunk, "id" | "created" | "model"> = {};
  #plain = true;

  constructor(private readonly onText: (delta: string) => void) {}

  /** One event's data. */
  add(data: string): void {
    if (data === "[DONE]") return;
    let chunk: Chunk;
    try {
      chunk = JSON.parse(data) as Chunk;
    } catch {
      this.#plain = false;
      return;
    }
    if (typeof chunk !== "object" || chunk === null || chunk.error !== undefined || !Array.isArray(chunk.choices)) {
      this.#plain = false;
      return;
    }
    for (const key of ["id", "created", "model"] as const) if (this.#metadata[key] === undefined && chunk[key] != null) this.#metadata[key] = chunk[key];
    if (chunk.usage != null) this.#usage = chunk.usage;
    const choice = chunk.choices[0];
    if (choice === undefined) return;
    if (typeof choice.finish_reason === "string") this.#finishReason = choice.finish_reason;
    const delta = choice.delta;
    if (delta === undefined || delta === null) return;
    if (typeof delta.content === "string" && delta.content !== "") {
      this.#text += delta.content;
      this.onText(delta.content);
    } else if (Array.isArray(delta.content)) {
      // Content as parts (text and thinking, as some endpoints send it) is left to the provider, but shown.
      for (const part of delta.content as Array<{ type?: unknown; text?: unknown }>) {
        if (part?.type === "text" && typeof part.text === "string" && part.text !== "") this.onText(part.text);
      }
    }
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === "string" && reasoning !== "") {
      // After the text, reasoning would be a second part in order; one put together here goes first.
      if (this.#text !== "") this.#plain = false;
      this.#reasoning += reasoning;
    }
    const unread =
      (delta.content != null && typeof delta.content !== "string") ||
      (reasoning != null && typeof reasoning !== "string") ||
      (delta.tool_calls != null && delta.tool_calls.length > 0) ||
      delta.extra_content != null;
    if (unread) this.#plain = false;
  }

  /**
   * The answer as the provider's doGenerate would have received it, or undefined when it is not a plain one. A stream
   * that ended without a finish reason (cut short by a proxy, or empty) is not: the provider's parser fails it.
   */
  completion(): AssembledCompletion | undefined {
    if (!this.#plain || this.#finishReason === null) return undefined;
    const answer: Omit<AssembledCompletion, "id" | "created" | "model"> = {
      object: "chat.completion",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: this.#text === "" ? null : this.#text, ...(this.#reasoning !== "" ? { reasoning_content: this.#reasoning } : {}) },
          finish_reason: this.#finishReason,
        },
      ],
      ...(this.#usage !== undefined ? { usage: this.#usage } : {}),
    };
    return { ...this.#metadata, ...answer };
  }
}
