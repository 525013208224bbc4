/** The webhook route: the secret, acknowledgment before handling, and 1,000 mutated updates. */
import { afterEach, describe, expect, it } from "vitest";
import { derivedWebhookSecret } from "../../../src/channels/telegram/api.js";
import { SECRET_HEADER } from "../../../src/channels/telegram/webhook.js";
import type { HandleOutcome } from "../../../src/core/types.js";
import { alice, directChat, forumChat, groupChat, messageUpdate, text, topicText } from "../../fakes/telegram/updates.js";
import { eventually, logged, startTelegram, type TelegramHarness } from "./harness.js";
import { seededRandom } from "../../helpers/seeded-random.js";

let h: TelegramHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const PUBLIC_URL = "https://bot.example.test/hooks/telegram";
const webhookSettings = { mode: "webhook", webhook: { url: PUBLIC_URL } };
const routeOf = (harness: TelegramHarness) => `${harness.url}/hooks/telegram`;

describe("Telegram webhook", () => {
  it("sets the webhook with a secret derived from the token, and answers updates pushed with it", async () => {
    h = await startTelegram({ settings: webhookSettings });
    await eventually(() => h!.channel.status().connected, "webhook set");
    expect(h.fake.webhook).toEqual({ url: PUBLIC_URL, secretToken: derivedWebhookSecret(h.fake.token) });
    expect(h.fake.webhook!.secretToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(h.channel.status()).toEqual({ connected: true, detail: `webhook ${PUBLIC_URL}` });
    expect(h.fake.callsOf("getUpdates")).toHaveLength(0);

    expect(await h.fake.pushWebhook({ update_id: 1, ...text(directChat(), "via webhook") }, { url: routeOf(h) })).toBe(200);
    const reply = await h.fake.waitFor(() => h!.fake.sent.find((s) => s.text === "echo: via webhook"));
    expect(reply.chatId).toBe(String(alice.id));
  });

  it("uses a configured secret, and refuses a wrong or missing one with 401 and no turn", async () => {
    h = await startTelegram({ settings: { ...webhookSettings, webhook: { url: PUBLIC_URL, secretToken: "my_Secret-123" } } });
    await eventually(() => h!.fake.webhook, "webhook set");
    expect(h.fake.webhook!.secretToken).toBe("my_Secret-123");
    const update = { update_id: 5, ...text(directChat(), "forged") };
    expect(await h.fake.pushWebhook(update, { url: routeOf(h), secret: "wrong" })).toBe(401);
    expect(await h.fake.pushWebhook(update, { url: routeOf(h), secret: null })).toBe(401);
    expect(logged(h.logs, /without the right secret token/)).toBeDefined();
    expect(await h.fake.pushWebhook({ update_id: 6, ...text(directChat(), "genuine") }, { url: routeOf(h) })).toBe(200);
    await eventually(() => h!.received.length === 1, "the genuine update");
    expect(h.received.map((m) => m.text)).toEqual(["genuine"]);
  });

  it("acknowledges before handling: the 200 comes back while the turn still runs", async () => {
    let finish: (outcome: HandleOutcome) => void = () => {};
    h = await startTelegram({
      settings: webhookSettings,
      handler: (_channel, received) => (m) => {
        received.push(m);
        return new Promise((resolve) => (finish = resolve));
      },
    });
    await eventually(() => h!.fake.webhook, "webhook set");
    expect(await h.fake.pushWebhook({ update_id: 7, ...text(directChat(), "slow") }, { url: routeOf(h) })).toBe(200);
    await eventually(() => h!.received.length === 1, "handed over");
    // Telegram re-sends while we are busy: acknowledged, not handled twice.
    expect(await h.fake.pushWebhook({ update_id: 7, ...text(directChat(), "slow") }, { url: routeOf(h) })).toBe(200);
    finish("answered");
    await h.channel.stop();
    expect(h.received).toHaveLength(1);
  });

  it("answers 400 to a body that is not JSON, 200 (and a warning) to JSON without an update_id, 503 when stopped, 413 when huge", async () => {
    h = await startTelegram({ settings: webhookSettings });
    const post = (body: string) =>
      fetch(routeOf(h!), { method: "POST", headers: { [SECRET_HEADER]: derivedWebhookSecret(h!.fake.token) }, body }).then((r) => r.status);
    expect(await post("{not json")).toBe(400);
    expect(await post(JSON.stringify({ message: {} }))).toBe(200);
    expect(logged(h.logs, /without a valid update_id/)).toBeDefined();
    await h.channel.stop();
    expect(await post(JSON.stringify({ update_id: 2 }))).toBe(503);
    await h.channel.start(async () => "answered");
    // Refused from its Content-Length: a 413, or the connection closed while the client was still sending
    // (last, so that no later request meets the closed connection).
    const oversized = await post(JSON.stringify({ update_id: 1, ...text(directChat(), "x".repeat(2 * 1024 * 1024)) })).catch(() => "closed");
    expect([413, "closed"]).toContain(oversized);
    expect(h.received).toEqual([]);
  });
});

const STRANGE_VALUES: unknown[] = [null, "", "x", -1, 0, 1e300, Number.MAX_SAFE_INTEGER, true, [], {}, [1, "a"], { nested: { deep: 1 } }, "😀".repeat(5000), "@switchboard_test_bot", "/ask@switchboard_test_bot"];

/** A copy of `update` with 0-3 fields somewhere inside deleted or replaced by a value of another type. */
function mutate(update: Record<string, unknown>, next: () => number): Record<string, unknown> {
  const copy = structuredClone(update);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const mutations = Math.floor(next() * 4);
  for (let m = 0; m < mutations; m++) {
    let node: Record<string, unknown> = copy;
    let key = pick(Object.keys(node));
    // Walk down into objects and arrays, stopping at a random depth.
    for (let child = node[key]; typeof child === "object" && child !== null && Object.keys(child).length > 0 && next() < 0.7; child = node[key]) {
      node = child as Record<string, unknown>;
      key = pick(Object.keys(node));
    }
    if (next() < 0.4) delete node[key];
    else node[key] = pick(STRANGE_VALUES);
  }
  if (next() < 0.05) copy[pick(["callback_query", "poll", "my_chat_member", "chat_join_request", "message_reaction"])] = { id: "x" };
  return copy;
}

describe("Telegram webhook under bad input", () => {
  it("survives 1,000 randomly mutated updates: no crash, no unhandled rejection, still answering afterwards", async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on("unhandledRejection", onRejection);
    try {
      h = await startTelegram({ settings: webhookSettings, handler: (_channel, received) => async (m) => (received.push(m), "answered") });
      await eventually(() => h!.channel.status().connected, "webhook set");
      const next = seededRandom(20240601);
      const photo = h.fake.addFile(Buffer.from("p"));
      const templates = [
        text(directChat(), "hello"),
        text(groupChat, "@switchboard_test_bot hi there"),
        topicText(forumChat, 3, "/ask@switchboard_test_bot topic"),
        messageUpdate(directChat(), { photo: [{ ...photo, width: 1, height: 1 }], caption: "pic", caption_entities: [{ type: "bold", offset: 0, length: 3 }] }),
        { edited_message: { message_id: 1, date: 1, edit_date: 2, chat: directChat(), from: alice, text: "edited" } },
        messageUpdate(directChat(), { text: "x".repeat(20_000), reply_to_message: { message_id: 3, date: 1, chat: directChat(), text: "q" } }),
      ];
      const statuses = new Map<number, number>();
      const bodies = Array.from({ length: 1000 }, (_, i) => ({ ...mutate(templates[Math.floor(next() * templates.length)]!, next), update_id: next() < 0.05 ? "bad" : i + 1 }));
      // Ten at a time, as Telegram pushes over several connections.
      for (let i = 0; i < bodies.length; i += 10) {
        const batch = await Promise.all(bodies.slice(i, i + 10).map((body) => h!.fake.pushWebhook(body, { url: routeOf(h!) })));
        for (const status of batch) statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
      expect([...statuses.keys()]).toEqual([200]);
      await eventually(async () => (await h!.store.sets("meta").all(`telegram-inbox:${h!.fake.token.split(":")[0]}`)).length === 0, "inbox drained", 15_000);
      expect(h.received.length).toBeGreaterThan(100);
      expect(h.logs.filter((r) => r.level >= 50)).toEqual([]);

      const before = h.received.length;
      expect(await h.fake.pushWebhook({ update_id: 5000, ...text(directChat(), "still here") }, { url: routeOf(h) })).toBe(200);
      await eventually(() => h!.received.length === before + 1, "a normal update after the storm");
      expect(rejections).toEqual([]);
    } finally {
      process.off("unhandledRejection", onRejection);
    }
  });
});
