/** The channel against the fake Bot API by long polling: receiving, replying, chunking, and send failures. */
import { afterEach, describe, expect, it } from "vitest";
import { createApi } from "../../../src/channels/telegram/api.js";
import { UpdateInbox } from "../../../src/channels/telegram/inbox.js";
import { DEFAULT_RETRY_POLICY } from "../../../src/channels/telegram/retry.js";
import { captureLog } from "../../helpers/captured-log.js";
import { faults } from "../../fakes/telegram/server.js";
import { testOutbound } from "../../helpers/outbound.js";
import { alice, directChat, forumChat, messageOf, text, topicText } from "../../fakes/telegram/updates.js";
import { eventually, FAST_RETRY, logged, startTelegram, type TelegramHarness } from "./harness.js";

let h: TelegramHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const target = { channel: "telegram" as const, chatId: String(alice.id) };

describe("Telegram channel, long polling", () => {
  it("connects, receives a direct message and answers it as a reply in the same chat", async () => {
    h = await startTelegram();
    await eventually(() => h!.channel.status().connected, "connected");
    expect(h.fake.callsOf("deleteWebhook")).toHaveLength(1);
    const update = text(directChat(), "hi bot");
    h.fake.addUpdate(update);
    const reply = await h.fake.waitFor(() => h!.fake.sent.find((s) => s.text === "echo: hi bot"));
    expect(reply).toMatchObject({ chatId: String(alice.id), parseMode: "HTML", replyTo: messageOf(update).message_id });
    expect(h.received[0]).toMatchObject({ chat: { type: "direct" }, text: "hi bot" });
    // The next getUpdates confirmed the update.
    await h.fake.waitFor(() => h!.fake.callsOf("getUpdates").some((c) => c.params.offset === 2));
  });

  it("answers in the forum topic the message came from and shows typing there", async () => {
    h = await startTelegram();
    h.fake.addUpdate(topicText(forumChat, 42, "@switchboard_test_bot in a topic"));
    const reply = await h.fake.waitFor(() => h!.fake.sent[0]);
    expect(reply).toMatchObject({ chatId: String(forumChat.id), threadId: 42, text: "echo: in a topic" });
    await h.channel.typing({ channel: "telegram", chatId: String(forumChat.id), threadId: "42" });
    expect(h.fake.chatActions).toEqual([{ chatId: String(forumChat.id), action: "typing", threadId: 42 }]);
  });

  it("acknowledges kinds of updates it does not handle, logging them at debug", async () => {
    h = await startTelegram();
    h.fake.addUpdate({ inline_query: { id: "i1", from: alice, query: "x", offset: "" } });
    // A press under an inline-mode message (no message): no button of ours.
    h.fake.addUpdate({ callback_query: { id: "q1", from: alice, chat_instance: "c" } });
    h.fake.addUpdate(text(directChat(), "after"));
    await eventually(() => h!.received.length === 1, "the text handled");
    const skipped = await eventually(() => logged(h!.logs, /update skipped/), "debug line");
    expect(skipped).toMatchObject({ level: 20, reason: "update of kind inline_query is not handled" });
    const press = await eventually(() => logged(h!.logs, /callback_query skipped/), "debug line of the press");
    expect(press).toMatchObject({ level: 20, reason: "callback_query without a message or data" });
    expect(h.logs.filter((r) => r.level >= 50)).toEqual([]);
  });

  it("handles what a previous run stored but never handled", async () => {
    h = await startTelegram();
    await h.channel.stop();
    await new UpdateInbox(h.store, h.fake.token.split(":")[0]!).add({ update_id: 99, ...text(directChat(), "left over") });
    await h.restart();
    await h.fake.waitFor(() => h!.fake.sent.find((s) => s.text === "echo: left over"));
    const inbox = new UpdateInbox(h.store, h.fake.token.split(":")[0]!);
    await eventually(async () => (await inbox.pending()).length === 0, "inbox emptied");
  });
});

describe("Telegram channel, sending", () => {
  it("splits a long reply into messages Telegram accepts; only the first quotes the message answered", async () => {
    h = await startTelegram();
    const paragraph = "Lorem ipsum **dolor** sit amet, 漢字 😀 `code` [link](https://example.com). ";
    const sent = await h.channel.sendText(target, paragraph.repeat(150), { replyTo: "7" });
    expect(sent.length).toBeGreaterThan(2);
    expect(h.fake.sent).toHaveLength(sent.length);
    expect(h.fake.sent.map((s) => s.replyTo)).toEqual([7, ...sent.slice(1).map(() => undefined)]);
    expect(sent.map((s) => s.messageId)).toEqual(h.fake.sent.map((s) => String(s.messageId)));
  });

  it("resends a chunk as plain text when Telegram cannot parse its HTML", async () => {
    h = await startTelegram();
    h.fake.fail("sendMessage", faults.cantParseEntities());
    await h.channel.sendText(target, "Some **bold** text & more");
    expect(h.fake.sent).toEqual([expect.objectContaining({ text: "Some bold text & more" })]);
    expect(h.fake.sent[0]!.parseMode).toBeUndefined();
    expect(logged(h.logs, /refused the HTML/)).toBeDefined();
  });

  it("classifies failed sends for the outbound policy and retries none itself", async () => {
    h = await startTelegram();
    h.fake.fail("sendMessage", faults.tooManyRequests(3));
    await expect(h.channel.sendText(target, "a")).rejects.toMatchObject({ failure: { kind: "rate_limited", retryAfterMs: 3000 } });
    h.fake.fail("sendMessage", faults.serverError());
    await expect(h.channel.sendText(target, "b")).rejects.toMatchObject({ failure: { kind: "unavailable" } });
    h.fake.fail("sendMessage", { kind: "error", code: 403, description: "Forbidden: bot was blocked by the user" });
    await expect(h.channel.sendText(target, "c")).rejects.toMatchObject({ failure: { kind: "rejected" } });
    expect(h.fake.callsOf("sendMessage")).toHaveLength(3);
    expect(h.fake.sent).toEqual([]);
  });

  it("a long text that fails halfway carries the parts that arrived, and resumes after them", async () => {
    h = await startTelegram();
    const long = `${"a".repeat(4000)}\n\n${"b".repeat(4000)}\n\n${"c".repeat(100)}`;
    // Once the first part has been answered, the next call meets a 500.
    const failSecond = h.fake.waitFor(() => h!.fake.sent.length === 1 && (h!.fake.fail("sendMessage", faults.serverError()), true));
    const failure = await h.channel.sendText(target, long).catch((err: unknown) => err);
    await failSecond;
    expect(failure).toMatchObject({ failure: { kind: "unavailable" }, sent: [expect.objectContaining({ messageId: expect.any(String) })] });
    await h.channel.sendText(target, long, { fromPart: 1 });
    expect(h.fake.sent.map((s) => s.text?.[0])).toEqual(["a", "b", "c"]);
  });

  it("through the outbound service: waits out a 429 and delivers exactly one message", async () => {
    h = await startTelegram();
    const outbound = testOutbound({ store: h.store, log: h.log, channelOf: () => h!.channel });
    h.fake.fail("sendMessage", faults.tooManyRequests(1));
    const started = Date.now();
    const sent = await outbound.sendText(target, "after the rate limit");
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(sent).toHaveLength(1);
    expect(h.fake.callsOf("sendMessage")).toHaveLength(2);
    expect(h.fake.sent.map((s) => s.text)).toEqual(["after the rate limit"]);
  });

  it("through the outbound service: retries 5xx, and gives up after the bound with an error naming the chat", async () => {
    h = await startTelegram();
    const outbound = testOutbound({ store: h.store, log: h.log, channelOf: () => h!.channel, config: { attempts: 3 } });
    h.fake.fail("sendMessage", faults.serverError(), 2);
    await outbound.sendText(target, "third time lucky");
    expect(h.fake.sent).toHaveLength(1);
    h.fake.fail("sendMessage", faults.serverError(), 3);
    await expect(outbound.sendText(target, "never")).rejects.toThrow(`Telegram sendMessage to chat ${alice.id} failed`);
    expect(h.fake.sent).toHaveLength(1);
  });

  it("never posts a message twice when the connection drops after Telegram took it", async () => {
    h = await startTelegram();
    const outbound = testOutbound({ store: h.store, log: h.log, channelOf: () => h!.channel });
    h.fake.fail("sendMessage", { kind: "dropAfter" });
    await expect(outbound.deliverText(target, "maybe delivered")).rejects.toMatchObject({ failure: { kind: "uncertain" } });
    expect(h.fake.sent.map((s) => s.text)).toEqual(["maybe delivered"]);
    expect(await outbound.outbox.pending()).toEqual([]);
  });

  it("retries an idempotent call whose connection dropped", async () => {
    h = await startTelegram();
    const file = h.fake.addFile(Buffer.from("x"));
    h.fake.fail("getFile", { kind: "drop" });
    const path = await h.channel.download({ kind: "file", ref: file.file_id, name: "x.txt" }, `${h.dataDir}/in`);
    expect(path).toMatch(/x\.txt$/);
    expect(h.fake.callsOf("getFile")).toHaveLength(2);
  });

  it("never repeats an edit or a delete that an uncertain attempt carried out: Telegram's answer to the repeat counts as done", async () => {
    h = await startTelegram();
    const { log, logs } = captureLog([]);
    const api = createApi({ token: h.fake.token, apiRoot: h.fake.url, retry: { policy: { ...DEFAULT_RETRY_POLICY, ...FAST_RETRY }, log } });
    const chat = String(alice.id);
    const sent = await api.sendMessage(chat, "first");
    // Carried out, then the connection cut before the answer: the repeat finds it done.
    h.fake.fail("editMessageText", { kind: "dropAfter" });
    await expect(api.editMessageText(chat, sent.message_id, "second")).resolves.toBe(true);
    h.fake.fail("deleteMessage", { kind: "dropAfter" });
    await expect(api.deleteMessage(chat, sent.message_id)).resolves.toBe(true);
    expect(h.fake.callsOf("editMessageText")).toHaveLength(2);
    expect(h.fake.callsOf("deleteMessage")).toHaveLength(2);
    expect(h.fake.edits.map((e) => e.text)).toEqual(["second"]);
    expect(h.fake.visible(chat)).toEqual([]);
    expect(logs.filter((l) => l.msg === "Telegram call was carried out by an earlier attempt").map((l) => l.method)).toEqual(["editMessageText", "deleteMessage"]);
    // A first attempt answered so is a refusal as before: nothing was done by this call.
    await expect(api.deleteMessage(chat, sent.message_id)).rejects.toThrow(/message to delete not found/);
  });

  it("never writes the bot token into a log line", async () => {
    h = await startTelegram({ retry: { maxAttempts: 2 } });
    h.fake.fail("getFile", { kind: "drop" }, 2);
    await expect(h.channel.download({ kind: "file", ref: "nope" }, h.dataDir)).rejects.toThrow(/getFile for the file failed/);
    h.fake.fail("getUpdates", faults.conflict());
    await eventually(() => logged(h!.logs, /polling conflict/), "conflict logged");
    expect(logged(h.logs, /call failed; retrying/)).toMatchObject({ method: "getFile", reason: expect.stringContaining("ECONNRESET") });
    expect(JSON.stringify(h.logs)).not.toContain(h.fake.token.split(":")[1]);
  });
});
