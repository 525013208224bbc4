/**
 * OpenTelemetry traces, on when the standard variables name a collector (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, with the exporter's other OTEL_* settings; OTEL_SDK_DISABLED=true turns them
 * off): one trace per inbound message, with its access check, queue wait, turn, model calls and tool calls (the AI
 * SDK's spans, which follow the GenAI conventions) and platform sends. Off, every span is the API's no-op one.
 */
import { SpanKind, SpanStatusCode, context, trace, type Attributes, type Span } from "@opentelemetry/api";

/** A proxy until a provider is registered: spans started before tracing starts are no-ops. */
const tracer = trace.getTracer("switchboard");

/** The process's one provider: OpenTelemetry's globals can be set once. */
let provider: { shutdown(): Promise<void> } | undefined;

export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === "true") return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Starts exporting when configured; the function it returns flushes what is buffered and stops. The SDK and the
 * exporter load only then: a gateway without a collector does not carry them.
 */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<(() => Promise<void>) | null> {
  if (!tracingConfigured(env) || provider) return null;
  const [{ AsyncLocalStorageContextManager }, { OTLPTraceExporter }, { resourceFromAttributes }, { BatchSpanProcessor, TracerProvider }] = await Promise.all([
    import("@opentelemetry/context-async-hooks"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-trace"),
  ]);
  if (provider) return null;
  const started = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME || "switchboard" }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
  });
  provider = started;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(started);
  return () => started.shutdown();
}

/** Whether spans are recorded: the AI SDK's own telemetry is asked for only then. */
export function tracing(): boolean {
  return provider !== undefined;
}

/** Runs `fn` as a new trace (an inbound message's), whatever context the channel's loop carries. */
export function inTrace<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { root: true, kind: SpanKind.SERVER, attributes }, (span) => ended(span, fn));
}

/** Runs `fn` in a child span of the active one; a thrown error marks the span (by its name: messages may carry chat text) and goes on. */
export function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, (span) => ended(span, fn));
}

/** A span ended by the caller (a wait that starts in one place and ends in another). */
export function startSpan(name: string, attributes: Attributes = {}): Span {
  return tracer.startSpan(name, { attributes });
}

/** The active trace's id when spans are recorded: log lines carry it, so a trace and its lines are found together. */
export function activeTraceId(): string | undefined {
  const span = trace.getActiveSpan();
  return span?.isRecording() ? span.spanContext().traceId : undefined;
}

async function ended<T>(span: Span, fn: (span: Span) => Promise<T>): Promise<T> {
  try {
    return await fn(span);
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : "error" });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * The AI SDK's telemetry settings for a model call: its spans (the call, each step, each tool call, with model and
 * token counts) join the active trace; prompts, replies and tool arguments stay out of them.
 */
export function modelTelemetry(functionId: string): { isEnabled: boolean; functionId: string; recordInputs: false; recordOutputs: false } {
  return { isEnabled: tracing(), functionId, recordInputs: false, recordOutputs: false };
}
