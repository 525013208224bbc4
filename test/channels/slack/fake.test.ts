/** The fake Slack answers as Slack does, whatever the client: form or JSON bodies, token checks, Slack's errors. */
import { afterEach, describe, expect, it } from "vitest";
import { dmOf, alice, startFakeSlack, type FakeSlack } from "../../fakes/slack/index.js";

let fake: FakeSlack | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function call(method: string, body: Record<string, unknown>, opts: { token?: string; json?: boolean } = {}): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { "Content-Type": opts.json ? "application/json; charset=utf-8" : "application/x-www-form-urlencoded" };
  if (opts.token !== undefined && opts.json) headers.Authorization = `Bearer ${opts.token}`;
  const form = new URLSearchParams(Object.entries({ ...body, ...(opts.token !== undefined && !opts.json ? { token: opts.token } : {}) }).map(([k, v]): [string, string] => [k, String(v)]));
  const response = await fetch(`${fake!.apiUrl}${method}`, { method: "POST", headers, body: opts.json ? JSON.stringify(body) : form.toString() });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

describe("the fake Slack Web API", () => {
  it("takes a JSON body with the token in the header and a form with the token in it", async () => {
    fake = await startFakeSlack();
    const viaJson = await call("chat.postMessage", { channel: dmOf(alice), text: "json" }, { token: fake.botToken, json: true });
    const viaForm = await call("chat.postMessage", { channel: dmOf(alice), text: "form" }, { token: fake.botToken });
    expect([viaJson.body.ok, viaForm.body.ok]).toEqual([true, true]);
    expect(fake.api.sent().map((m) => m.text)).toEqual(["json", "form"]);
    expect(viaJson.headers.get("x-oauth-scopes")).toContain("chat:write");
  });

  it("checks tokens and content as Slack does, answering 200 with ok: false", async () => {
    fake = await startFakeSlack();
    const answers = await Promise.all([
      call("chat.postMessage", { channel: dmOf(alice), text: "x" }),
      call("chat.postMessage", { channel: dmOf(alice), text: "x" }, { token: "xoxb-nope" }),
      call("chat.postMessage", { channel: dmOf(alice), text: "x" }, { token: fake.appToken }),
      call("apps.connections.open", {}, { token: fake.botToken }),
      call("chat.postMessage", { channel: dmOf(alice), text: "x".repeat(40_001) }, { token: fake.botToken }),
      call("chat.postMessage", { channel: dmOf(alice), blocks: JSON.stringify([{ type: "section", text: { type: "mrkdwn", text: "x".repeat(3_001) } }]) }, { token: fake.botToken }),
      call("chat.postMessage", { channel: "C0NOPE", text: "x" }, { token: fake.botToken }),
      call("chat.update", { channel: dmOf(alice), ts: "1.000001", text: "x" }, { token: fake.botToken }),
    ]);
    expect(answers.map((a) => [a.status, a.body.error])).toEqual([
      [200, "not_authed"],
      [200, "invalid_auth"],
      [200, "not_allowed_token_type"],
      [200, "not_allowed_token_type"],
      [200, "msg_too_long"],
      [200, "invalid_blocks"],
      [200, "channel_not_found"],
      [200, "message_not_found"],
    ]);
  });

  it("rate limits with 429 and Retry-After, and fails with a 5xx when told", async () => {
    fake = await startFakeSlack();
    fake.api.failNext("chat.postMessage", { status: 429, retryAfter: 30 });
    fake.api.failNext("auth.test", { status: 503 });
    const limited = await call("chat.postMessage", { channel: dmOf(alice), text: "x" }, { token: fake.botToken });
    expect([limited.status, limited.headers.get("retry-after"), limited.body.error]).toEqual([429, "30", "ratelimited"]);
    expect((await call("auth.test", {}, { token: fake.botToken })).status).toBe(503);
  });
});
