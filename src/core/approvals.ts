/**
 * Approvals as a port: the handler registry asks one ToolGate before every tool runs, so a call waits for a
 * person's approval on every path that runs tools (a chat turn, a scheduled run, a delegated turn, a resumed turn).
 * What decides and asks lives in a feature (src/approvals); the registry only knows this port.
 */
import type { ApprovalNote } from "./approval-context.js";
import type { ToolContext, ToolDefinition } from "./tools.js";

/** The gate's answer: run the tool, or a plain reason the model gets instead of its result. */
export type GateVerdict =
  | { run: true; note?: ApprovalNote }
  | { run: false; code: "denied" | "timeout" | "aborted"; reason: string; note: ApprovalNote };

/** A call as the gate sees it: validated input, before it runs. */
export interface GatedCall {
  tool: ToolDefinition;
  input: unknown;
  ctx: ToolContext;
}

export interface ToolGate {
  /** Resolves when the call may run or is refused; never rejects (a failure to ask refuses the call). */
  admit(call: GatedCall): Promise<GateVerdict>;
}
