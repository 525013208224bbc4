/**
 * What a turn carries for approvals (core/approvals.ts): the third-party content it took in (its taint), where its
 * approvals are asked, and the note a decided call leaves in the tool outcome and the session log.
 *
 * A turn's taint is what makes the gate ask in `tainted` mode: once a turn took in third-party content (a web page,
 * MCP output, a file it did not write, other people's messages, a transcript), a prompt injection may be steering it.
 */

/** How a call's approval was decided, and by whom ("telegram:42", "console", "policy"). */
export interface ApprovalNote {
  requestId: string;
  decision: "approved" | "always" | "denied" | "timed_out";
  by: string;
}

/**
 * Where a turn's approvals are asked when not in its own chat, from its own sender. A scheduled run asks its
 * creator in a direct message (nobody may be watching the task's chat) and is told of a request that timed out.
 */
export interface ApprovalRoute {
  direct: boolean;
  onTimeout?: (reason: string) => void;
}

/** What third-party content a turn took in so far; shared by the turn's calls (and a delegated child's). */
export class TurnTaint {
  readonly #sources = new Set<string>();
  readonly #written = new Set<string>();

  get tainted(): boolean {
    return this.#sources.size > 0;
  }

  /** E.g. "a web page", "MCP output": what the approval request names as the reason it asks. */
  get sources(): string[] {
    return [...this.#sources];
  }

  mark(source: string): void {
    this.#sources.add(source);
  }

  /** A workspace file the turn wrote itself: reading it back takes in nothing new. */
  wrote(path: string): void {
    this.#written.add(path);
  }

  hasWritten(path: string): boolean {
    return this.#written.has(path);
  }
}

/** Third-party content the turn's message itself brings: a quoted message, other people's messages, a transcript. */
export function messageTaintSources(message: {
  replyTo?: { text?: string; fromBot?: boolean } | undefined;
  attachments: ReadonlyArray<{ kind: string }>;
}, earlierMessages: number): string[] {
  const sources: string[] = [];
  if (message.replyTo?.text && !message.replyTo.fromBot) sources.push("a quoted message");
  if (earlierMessages > 0) sources.push("other people's group messages");
  if (message.attachments.some((a) => a.kind === "voice" || a.kind === "audio" || a.kind === "video")) sources.push("a transcript");
  return sources;
}
