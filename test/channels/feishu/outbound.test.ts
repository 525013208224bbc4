import { afterEach, describe, expect, it } from "vitest";
import { codePointLength } from "../../../src/core/text.js";
import type { OutboundTarget } from "../../../src/core/types.js";
import { silentLog } from "../../scheduler/helpers.js";
import { testOutbound } from "../../helpers/outbound.js";
import { startRig, type Rig, type RigOptions } from "./harness.js";

const outboundOf = (r: Rig) => testOutbound({ store: r.store, log: silentLog, channelOf: () => r.channel });

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const chat: OutboundTarget = { channel: "feishu", chatId: "oc_chat" };

/** A rig (webhook mode: no socket needed) and a message in oc_chat that the bot may answer. */
async function rigWithMessage(opts: RigOptions = {}): Promise<Rig> {
  rig = await startRig({ mode: "webhook", ...opts });
  rig.fake.api.knowMessage("om_question", "oc_chat");
  return rig;
}

function table(n: number): string {
  return `Table ${n}\n\n| a | b |\n|---|---|\n| ${n} | ${n * 2} |\n`;
}

describe("Feishu replies", () => {
  it("answers with a Markdown card that quotes the message it answers", async () => {
    const r = await rigWithMessage();
    const sent = await r.channel.sendText(chat, "**Hello** there", { replyTo: "om_question" });
    expect(r.fake.api.sent).toHaveLength(1);
    const [message] = r.fake.api.sent;
    expect(message).toMatchObject({ msgType: "interactive", chatId: "oc_chat", replyTo: "om_question", replyInThread: false });
    expect(JSON.stringify(message!.content)).toContain("**Hello** there");
    expect(sent).toEqual([{ messageId: message!.messageId, sentAt: expect.any(Date) }]);
  });

  it("sends a card Feishu refuses (too many tables) again as a post, and logs why", async () => {
    const r = await rigWithMessage();
    const reply = [1, 2, 3, 4, 5, 6].map(table).join("\n");
    await r.channel.sendText(chat, reply, { replyTo: "om_question" });
    expect(r.fake.api.sent.map((m) => m.msgType)).toEqual(["post"]);
    expect(JSON.stringify(r.fake.api.sent[0]!.content)).toContain("| 6 | 12 |");
    const warning = r.logs.find((l) => l.msg === "Feishu refused the reply as card; sending it as post");
    expect(warning).toMatchObject({ code: 230099 });
  });

  it("ends with plain text when the card and the post are both refused: the reply is never lost", async () => {
    const r = await rigWithMessage();
    r.fake.api.fail(/\/reply$/, 2, { status: 400, code: 230099, msg: "Failed to create card content" });
    await r.channel.sendText(chat, "# Report\nall fine", { replyTo: "om_question" });
    expect(r.fake.api.sent.map((m) => [m.msgType, m.content])).toEqual([["text", { text: "# Report\nall fine" }]]);
  });

  it("splits a long reply into messages within the limit; only the first quotes the question", async () => {
    const r = await rigWithMessage({ maxMessageLength: 200, replyFormat: "text" });
    const lines = Array.from({ length: 30 }, (_, i) => `Line ${i + 1}: ${"word ".repeat(6).trim()} 飞书`);
    const sent = await r.channel.sendText(chat, lines.join("\n"), { replyTo: "om_question" });
    const texts = r.fake.api.sent.map((m) => m.content.text as string);
    expect(texts.length).toBeGreaterThan(3);
    expect(sent).toHaveLength(texts.length);
    for (const text of texts) expect(codePointLength(text)).toBeLessThanOrEqual(200);
    expect(texts.join("\n")).toBe(lines.join("\n"));
    expect(r.fake.api.sent[0]!.replyTo).toBe("om_question");
    expect(r.fake.api.sent.slice(1).every((m) => m.replyTo === undefined && m.chatId === "oc_chat")).toBe(true);
  });

  it("keeps every message of a reply inside the thread it answers", async () => {
    const r = await rigWithMessage({ maxMessageLength: 200, replyFormat: "text" });
    r.fake.api.knowMessage("om_root", "oc_chat");
    const inThread: OutboundTarget = { ...chat, threadId: "om_root" };
    await r.channel.sendText(inThread, "first\n".repeat(60), { replyTo: "om_question" });
    await r.channel.sendText(inThread, "a reminder later, with nothing to quote");
    const sent = r.fake.api.sent;
    expect(sent.length).toBeGreaterThan(2);
    expect(sent.every((m) => m.replyInThread)).toBe(true);
    expect(sent.slice(0, -1).every((m) => m.replyTo === "om_question")).toBe(true);
    expect(sent.at(-1)!.replyTo).toBe("om_root");
  });

  it("reports a business error code as an error with the code and message, never as sent", async () => {
    const r = await rigWithMessage({ replyFormat: "text" });
    r.fake.api.fail(/\/reply$/, 1, { status: 200, code: 230002, msg: "The bot is not in the chat." });
    await expect(r.channel.sendText(chat, "hi", { replyTo: "om_question" })).rejects.toThrow(
      /chat oc_chat failed: POST \/open-apis\/im\/v1\/messages\/om_question\/reply: Feishu error 230002: The bot is not in the chat\./,
    );
    expect(r.fake.api.sent).toEqual([]);
  });

  it("retries a 5xx or a cut connection whose message was already sent, without sending it twice", async () => {
    const r = await rigWithMessage();
    r.fake.api.fail(/\/reply$/, 1, { status: 502 }, { afterProcessing: true });
    r.fake.api.fail(/\/reply$/, 1, { status: 0 }, { afterProcessing: true });
    // The outbound service retries; the same idempotency key on every attempt lets Feishu drop the repeats.
    const sent = await outboundOf(r).sendText(chat, "exactly once", { replyTo: "om_question" });
    expect(r.fake.api.sent).toHaveLength(1);
    expect(sent[0]!.messageId).toBe(r.fake.api.sent[0]!.messageId);
  });

  it("classifies failures for the outbound policy: a cut connection is uncertain, with a key repeatable for the hour Feishu keeps it", async () => {
    const r = await rigWithMessage();
    r.fake.api.fail(/\/reply$/, 1, { status: 0 }, { afterProcessing: true });
    await expect(r.channel.sendText(chat, "maybe", { replyTo: "om_question" })).rejects.toMatchObject({ failure: { kind: "uncertain" } });
    r.fake.api.fail(/\/reply$/, 1, { status: 0 }, { afterProcessing: true });
    await expect(r.channel.sendText(chat, "maybe", { replyTo: "om_question", idempotencyKey: "k1" })).rejects.toMatchObject({ failure: { kind: "uncertain" }, repeatableUntil: expect.any(Number) });
    r.fake.api.fail(/\/reply$/, 1, { status: 503, msg: "unavailable" });
    await expect(r.channel.sendText(chat, "no", { replyTo: "om_question" })).rejects.toMatchObject({ failure: { kind: "unavailable" } });
  });

  it("waits out Feishu's rate limit and then sends", async () => {
    const r = await rigWithMessage();
    const headers = { "x-ogw-ratelimit-reset": "0" };
    r.fake.api.fail(/\/messages$/, 2, { status: 429, code: 99991400, msg: "request trigger frequency limit", headers });
    await outboundOf(r).sendText(chat, "after the limit");
    expect(r.fake.api.sent.map((m) => m.chatId)).toEqual(["oc_chat"]);
  });

  it("gives up after its retries, saying what Feishu answered", async () => {
    const r = await rigWithMessage();
    r.fake.api.fail(/\/reply$/, 10, { status: 503, msg: "unavailable" });
    await expect(r.channel.sendText(chat, "lost?", { replyTo: "om_question" })).rejects.toThrow(/HTTP 503/);
    expect(r.fake.api.sent).toEqual([]);
  });

  it("fetches a new tenant token once when Feishu rejects the cached one, and sends one message", async () => {
    const r = await rigWithMessage();
    await r.channel.sendText(chat, "before");
    const issued = r.fake.api.tokensIssued;
    r.fake.api.expireTokens();
    await r.channel.sendText(chat, "after expiry");
    expect(r.fake.api.tokensIssued).toBe(issued + 1);
    const contents = r.fake.api.sent.map((m) => JSON.stringify(m.content));
    expect(contents).toEqual([expect.stringContaining("before"), expect.stringContaining("after expiry")]);
    expect(r.logs.some((l) => l.msg === "Feishu rejected the tenant access token; fetching a new one")).toBe(true);
  });

  it("does not loop when even a fresh token is rejected", async () => {
    const r = await rigWithMessage({ replyFormat: "text" });
    r.fake.api.fail(/\/messages$/, 5, { status: 400, code: 99991663, msg: "Invalid access token for authorization." });
    await expect(r.channel.sendText(chat, "x")).rejects.toThrow(/99991663/);
    expect(r.fake.api.sent).toEqual([]);
  });

  it("replaces the tenant token before it expires", async () => {
    // A token living 180 s is due for replacement at once: the SDK refreshes 3 minutes early.
    const r = await rigWithMessage({ fake: { tokenLifetimeSec: 180 } });
    const issued = r.fake.api.tokensIssued;
    await r.channel.sendText(chat, "one");
    await r.channel.sendText(chat, "two");
    expect(r.fake.api.tokensIssued).toBe(issued + 2);
    expect(r.fake.api.sent).toHaveLength(2);
  });
});
