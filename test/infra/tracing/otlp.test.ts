/**
 * Traces over OTLP: a gateway started with OTEL_EXPORTER_OTLP_ENDPOINT sends one trace per inbound message to a
 * local OTLP/HTTP receiver, its spans parented from the message down to the model calls, the tool call and the
 * send, with no chat text in them; the message's log lines carry the trace's id.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tracingConfigured } from "../../../src/infra/tracing.js";
import { startTestGateway } from "../../e2e/harness.js";
import { startFakeTelegram } from "../../fakes/telegram/server.js";
import { directChat, text } from "../../fakes/telegram/updates.js";

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}
interface OtlpBody {
  resourceSpans: Array<{ resource: { attributes: OtlpSpan["attributes"] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
}

let receiver: Server;
const bodies: OtlpBody[] = [];
const rawBodies: string[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let data = "";
    req.on("data", (chunk: Buffer) => (data += chunk.toString()));
    req.on("end", () => {
      if (req.url === "/v1/traces" && req.headers["content-type"]?.startsWith("application/json")) {
        rawBodies.push(data);
        bodies.push(JSON.parse(data) as OtlpBody);
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  await new Promise((resolve) => receiver.close(resolve));
});

const attribute = (span: OtlpSpan, key: string): unknown => Object.values(span.attributes.find((a) => a.key === key)?.value ?? {})[0];

describe("OpenTelemetry traces", () => {
  it("one trace per message: access, queue wait, turn, model calls, the tool call and the send, parented", async () => {
    const tg = await startFakeTelegram();
    const t = await startTestGateway({
      channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1, streaming: "off", ackReaction: null } },
      access: { allowFrom: [`telegram:${directChat().id}`] },
    });
    t.fake.enqueue({ toolCalls: [{ name: "list_directory", arguments: { path: "." } }] }, { text: "Nothing secret in there." });
    tg.addUpdate(text(directChat(), "what is in my folder? my password is hunter2"));
    await tg.waitFor(() => tg.sent.find((sent) => sent.text === "Nothing secret in there."), 15_000);
    // Stopping flushes what the batch processor holds: no waiting on its schedule.
    await t.close();
    await tg.close();

    const spans = bodies.flatMap((body) => body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
    const root = spans.find((span) => span.name === "message");
    expect(root, "the message's root span").toBeDefined();
    expect(root!.parentSpanId ?? "").toBe("");
    const trace = spans.filter((span) => span.traceId === root!.traceId);
    const byId = new Map(trace.map((span) => [span.spanId, span]));
    const ancestors = (span: OtlpSpan): string[] => {
      const names: string[] = [];
      for (let parent = byId.get(span.parentSpanId ?? ""); parent; parent = byId.get(parent.parentSpanId ?? "")) names.push(parent.name);
      return names;
    };
    const named = (name: string) => trace.filter((span) => span.name === name);

    expect(ancestors(named("access")[0]!)).toEqual(["message"]);
    expect(ancestors(named("queue wait")[0]!)).toEqual(["message"]);
    expect(ancestors(named("turn")[0]!)).toEqual(["message"]);
    const modelCalls = named("ai.generateText.doGenerate");
    expect(modelCalls).toHaveLength(2);
    for (const call of modelCalls) {
      expect(ancestors(call)).toEqual(["ai.generateText", "turn", "message"]);
      expect(attribute(call, "gen_ai.request.model")).toBe("fake-model");
      expect(Number(attribute(call, "gen_ai.usage.input_tokens"))).toBeGreaterThan(0);
    }
    const tool = named("ai.toolCall");
    expect(tool.map((span) => attribute(span, "ai.toolCall.name"))).toEqual(["list_directory"]);
    expect(ancestors(tool[0]!)).toEqual(["ai.generateText", "turn", "message"]);
    const send = named("send text");
    expect(send).toHaveLength(1);
    expect(ancestors(send[0]!)).toEqual(["message"]);
    expect(attribute(send[0]!, "switchboard.send.attempts")).toBe(1);

    expect(rawBodies.join("")).not.toContain("hunter2");
    expect(rawBodies.join("")).not.toContain("sk-e2e-secret");
    const lines = t.logs.filter((line) => line.traceId === root!.traceId);
    expect(lines.length).toBeGreaterThan(0);
  });
});

describe("when tracing is on", () => {
  it("with a collector named by the standard variables, unless the SDK is disabled", () => {
    expect(tracingConfigured({})).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" })).toBe(false);
  });
});
