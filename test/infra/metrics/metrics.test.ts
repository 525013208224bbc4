import { afterEach, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../e2e/harness.js";

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const TOKEN = "metrics-test-token";

async function scrape(gw: TestGateway): Promise<string> {
  const res = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  return res.text();
}

/** The value of one sample line, e.g. `name{a="b"}`; 0 when the series has not been written yet. */
function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe("GET /metrics", () => {
  it("is behind the token", async () => {
    t = await startTestGateway({ http: { token: TOKEN } });
    const res = await fetch(`${t.url}/metrics`);
    expect(res.status).toBe(401);
  });

  it("counts the inbound message, the turn, the model's tokens and the tool call of a message", async () => {
    t = await startTestGateway({ http: { token: TOKEN } });
    const before = await scrape(t);
    t.fake.enqueue({ toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "write_file" } }] }, { text: "done" });
    expect((await t.post({ chatId: "m1", userId: "alice", text: "hello" })).body.outcome).toBe("answered");
    const after = await scrape(t);

    const inbound = 'switchboard_inbound_messages_total{channel="web",outcome="answered"}';
    expect(sample(after, inbound) - sample(before, inbound)).toBe(1);
    const turns = 'switchboard_turn_duration_seconds_count{channel="web",outcome="answered"}';
    expect(sample(after, turns) - sample(before, turns)).toBe(1);
    const tools = 'switchboard_tool_calls_total{tool="get_tool_info",outcome="ok"}';
    expect(sample(after, tools) - sample(before, tools)).toBe(1);
    const tokens = 'switchboard_model_tokens_total{provider="openai-compatible",model="fake-model",kind="output"}';
    expect(sample(after, tokens)).toBeGreaterThan(sample(before, tokens));
    const latency = 'switchboard_model_latency_seconds_count{provider="openai-compatible",model="fake-model"}';
    expect(sample(after, latency) - sample(before, latency)).toBe(1);
    expect(sample(after, "switchboard_queue_depth")).toBe(0);
    expect(after).toContain("# TYPE switchboard_scheduler_lateness_seconds histogram");
    expect(after).toContain("# TYPE switchboard_send_failures_total counter");
  });
});
