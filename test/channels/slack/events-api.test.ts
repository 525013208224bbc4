/** The Events API over HTTP (`mode: events`): signed requests to /slack/events, through the whole gateway. */
import { afterEach, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../e2e/harness.js";
import { alice, blockActions, bob, dmOf, eventCallback, messageEvent, postSigned, slashCommand, startFakeSlack, type FakeSlack } from "../../fakes/slack/index.js";
import { closeInOrder } from "../../helpers/close.js";
import { eventually } from "../../helpers/wait.js";

let fake: FakeSlack | undefined;
let t: TestGateway | undefined;
afterEach(() => closeInOrder([t, fake]).then(() => (t = fake = undefined)));

async function start(access: NonNullable<Parameters<typeof startTestGateway>[0]>["access"] = { dmPolicy: "open" }): Promise<{ gw: TestGateway; slack: FakeSlack; url: string }> {
  fake = await startFakeSlack();
  t = await startTestGateway({
    // The app token is ignored in events mode: no Socket Mode connection is made with it.
    channels: { slack: { botToken: fake.botToken, appToken: fake.appToken, signingSecret: fake.signingSecret, apiUrl: fake.apiUrl, mode: "events", streaming: "off", ackReaction: null } },
    access,
  });
  return { gw: t, slack: fake, url: `${t.url}/slack/events` };
}

describe("Slack Events API", () => {
  it("answers the url_verification challenge of a signed request", async () => {
    const { url, slack } = await start();
    const response = await postSigned(url, "event", { token: "x", challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", type: "url_verification" }, { secret: slack.signingSecret });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" });
    expect(slack.socket.connections).toBe(0);
    expect(slack.api.calls.some((c) => c.method === "apps.connections.open")).toBe(false);
  });

  it("refuses a wrong signature, a stale or missing timestamp and a body that is no Slack request, and handles none of them", async () => {
    const { gw, url, slack } = await start();
    gw.fake.respondWith(() => ({ text: "should not happen" }));
    const event = eventCallback(messageEvent({ channel: dmOf(alice), user: alice, text: "forged" }));
    const wrongSecret = await postSigned(url, "event", event, { secret: "not-the-secret" });
    const stale = await postSigned(url, "event", event, { secret: slack.signingSecret, timestamp: Math.floor(Date.now() / 1000) - 6 * 60 });
    const fromTheFuture = await postSigned(url, "event", event, { secret: slack.signingSecret, timestamp: Math.floor(Date.now() / 1000) + 6 * 60 });
    const noTimestamp = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(event) });
    const notSlack = await postSigned(url, "event", { hello: "world" }, { secret: slack.signingSecret });
    const notJson = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Slack-Request-Timestamp": String(Math.floor(Date.now() / 1000)), "X-Slack-Signature": "v0=00" },
      body: "{",
    });

    expect([wrongSecret.status, stale.status, fromTheFuture.status, noTimestamp.status, notSlack.status, notJson.status]).toEqual([401, 401, 401, 401, 400, 401]);
    expect(((await wrongSecret.json()) as { error: string }).error).toBe("bad_signature");
    expect(((await stale.json()) as { error: string }).error).toBe("stale_request");
    expect(gw.logs.some((l) => l.msg === "Slack request without a valid signature; refused")).toBe(true);
    expect(gw.fake.requests).toHaveLength(0);
    expect(slack.api.sent()).toHaveLength(0);
  });

  it("answers a DM once, though Slack sends it again with x-slack-retry-num", async () => {
    const { gw, url, slack } = await start();
    gw.fake.respondWith(() => ({ text: "only once", delayMs: 200 }));
    const event = eventCallback(messageEvent({ channel: dmOf(alice), user: alice, text: "count me once" }));
    const first = await postSigned(url, "event", event, { secret: slack.signingSecret });
    const retry = await postSigned(url, "event", event, { secret: slack.signingSecret, retryNum: 1 });
    expect([first.status, retry.status]).toEqual([200, 200]);
    await eventually(() => slack.api.sent().length === 1, "the reply");
    // Once more after the answer: the gateway remembers it was handled.
    expect((await postSigned(url, "event", event, { secret: slack.signingSecret, retryNum: 2 })).status).toBe(200);
    await eventually(() => gw.logs.some((l) => l.msg === "duplicate delivery dropped"), "the late redelivery dropped");
    expect(gw.fake.requests).toHaveLength(1);
    expect(slack.api.sent().map((m) => m.text)).toEqual(["only once"]);
  });

  it("takes button presses and slash commands as forms on the same path", async () => {
    const { url, slack } = await start({ owners: [`slack:${alice.id}`], dmPolicy: "pairing" });
    const hello = eventCallback(messageEvent({ channel: dmOf(bob), user: bob, text: "hi" }));
    expect((await postSigned(url, "event", hello, { secret: slack.signingSecret })).status).toBe(200);
    const notice = await eventually(() => slack.api.sent().find((m) => /asks to chat with me/.test(m.text)), "the owner's notice");
    const approve = (notice.blocks ?? []).filter((b) => b.type === "actions").flatMap((b) => b.elements as Array<{ action_id: string }>)[0]!.action_id;
    const press = blockActions({ user: bob, channel: notice.channel, message: { ts: notice.ts, text: notice.text, blocks: notice.blocks! }, actionId: approve });
    expect((await postSigned(url, "press", press, { secret: slack.signingSecret })).status).toBe(200);
    await eventually(() => slack.api.ephemerals.some((e) => e.user === bob.id && e.text === "This button is not for you."), "the refusal");

    expect((await postSigned(url, "command", slashCommand("/switchboard", "", alice, dmOf(alice)), { secret: slack.signingSecret })).status).toBe(200);
    await eventually(() => slack.api.sent().some((m) => m.channel === dmOf(alice) && m.text.includes("/new")), "the help, as /switchboard alone runs /help");
  });
});
