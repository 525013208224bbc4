/** The /slack/events route on its own, with an injected clock: the five-minute window, exactly. */
import { describe, expect, it } from "vitest";
import { registerEventsRoute, slackSignature, type WebhookReceiver } from "../../../src/channels/slack/webhook.js";
import { HttpServer } from "../../../src/infra/http/server.js";
import { silentLog } from "../../scheduler/helpers.js";

const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const NOW = 1_700_000_000_000;

function route(receiver: WebhookReceiver | undefined) {
  const http = new HttpServer({ host: "127.0.0.1", port: 0, token: null, log: silentLog });
  registerEventsRoute({ http, path: "/slack/events", signingSecret: SECRET, log: silentLog, receiver: () => receiver, now: () => NOW });
  return (timestamp: number, body: string, headers: Record<string, string> = {}) =>
    http.app.request("/slack/events", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Slack-Request-Timestamp": String(timestamp), "X-Slack-Signature": slackSignature(SECRET, String(timestamp), body), ...headers },
      body,
    });
}

describe("the Events API route", () => {
  it("takes a request up to five minutes old and refuses one older, by the injected clock", async () => {
    const received: Array<[string, number]> = [];
    const post = route(async (kind, _body, retryNum) => {
      received.push([kind, retryNum]);
      return { accepted: true };
    });
    const body = JSON.stringify({ type: "event_callback", team_id: "T1", event_id: "Ev1", event: { type: "message" } });
    const seconds = NOW / 1000;
    expect((await post(seconds - 300, body)).status).toBe(200);
    expect((await post(seconds - 301, body)).status).toBe(401);
    expect((await post(seconds + 301, body)).status).toBe(401);
    expect((await post(seconds, body, { "X-Slack-Retry-Num": "2" })).status).toBe(200);
    expect(received).toEqual([["events_api", 0], ["events_api", 2]]);
  });

  it("answers 503 while the channel is stopped and 500 when the event could not be recorded, so Slack sends it again", async () => {
    const body = JSON.stringify({ type: "event_callback", team_id: "T1", event_id: "Ev1", event: { type: "message" } });
    expect((await route(undefined)(NOW / 1000, body)).status).toBe(503);
    expect((await route(async () => ({ accepted: false }))(NOW / 1000, body)).status).toBe(500);
  });
});
