/**
 * The gateway's Prometheus metrics (prom-client), served on GET /metrics. One registry per process: the parts
 * that count things import the metric they move; label values are bounded sets (channel names, outcomes, tool
 * names, HTTP statuses), never user ids or text.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry, prefix: "switchboard_process_" });

const registers = [metricsRegistry];

/** Every inbound message the router saw, by channel and how it ended (answered, ignored, refused, failed...). */
export const inboundMessages = new Counter({
  name: "switchboard_inbound_messages_total",
  help: "Inbound messages by channel and outcome",
  labelNames: ["channel", "outcome"] as const,
  registers,
});

export const turnDuration = new Histogram({
  name: "switchboard_turn_duration_seconds",
  help: "Agent turn duration, from the turn's start to its reply, by channel and outcome",
  labelNames: ["channel", "outcome"] as const,
  buckets: [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300],
  registers,
});

export const modelLatency = new Histogram({
  name: "switchboard_model_latency_seconds",
  help: "Time of one model generation (all its steps), by provider and model",
  labelNames: ["provider", "model"] as const,
  buckets: [0.25, 0.5, 1, 2, 5, 10, 20, 60, 120],
  registers,
});

export const llmTokens = new Counter({
  name: "switchboard_llm_tokens_total",
  help: "Tokens (input + output) of every model call, by model and kind of work (chat, compaction, task, memory)",
  labelNames: ["model", "kind"] as const,
  registers,
});

export const llmCost = new Counter({
  name: "switchboard_llm_cost_total",
  help: "Cost of the model calls at llm.prices and of the images at images.pricePerImage (currency units), by model",
  labelNames: ["model"] as const,
  registers,
});

export const modelTokens = new Counter({
  name: "switchboard_model_tokens_total",
  help: "Tokens used by the model, by provider, model and kind (input, output)",
  labelNames: ["provider", "model", "kind"] as const,
  registers,
});

export const toolCalls = new Counter({
  name: "switchboard_tool_calls_total",
  help: "Tool calls by tool and outcome (ok or the error code)",
  labelNames: ["tool", "outcome"] as const,
  registers,
});

export const sendFailures = new Counter({
  name: "switchboard_send_failures_total",
  help: "Replies that could not be sent, by channel and HTTP status (or 'none' when the error carried none)",
  labelNames: ["channel", "status"] as const,
  registers,
});

export const schedulerLateness = new Histogram({
  name: "switchboard_scheduler_lateness_seconds",
  help: "How late a scheduled run started after its slot",
  buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
  registers,
});

export const queueDepth = new Gauge({
  name: "switchboard_queue_depth",
  help: "Turns waiting or running in the session queues",
  registers,
});

/** For the MCP engine: one call to an MCP server's tool, by server and outcome. */
export const mcpCalls = new Counter({
  name: "switchboard_mcp_calls_total",
  help: "Calls to MCP server tools by server and outcome",
  labelNames: ["server", "outcome"] as const,
  registers,
});

/** For the sandbox: one run of untrusted code, by runtime and outcome. */
export const sandboxRuns = new Counter({
  name: "switchboard_sandbox_runs_total",
  help: "Sandbox runs by runtime and outcome",
  labelNames: ["runtime", "outcome"] as const,
  registers,
});

/**
 * The HTTP status an SDK or fetch error carries, as a label value; looked for along the error's causes too, since
 * adapters report a failed send as a SendError wrapping the SDK's error.
 */
export function statusLabel(err: unknown): string {
  let current = err;
  for (let depth = 0; typeof current === "object" && current !== null && depth < 5; depth += 1) {
    const e = current as { status?: unknown; statusCode?: unknown; httpStatus?: unknown; error_code?: unknown; cause?: unknown };
    const status = e.status ?? e.statusCode ?? e.httpStatus ?? e.error_code;
    if (typeof status === "number" && Number.isInteger(status)) return String(status);
    current = e.cause;
  }
  return "none";
}

/** Approval requests by how they ended: approved, always (approved for the chat from then on), denied, timed_out. */
export const approvalDecisions = new Counter({
  name: "switchboard_approval_decisions_total",
  help: "Approval requests by decision (approved, always, denied, timed_out)",
  labelNames: ["decision"] as const,
  registers,
});
