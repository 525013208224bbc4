import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SendError } from "../../../src/core/send-error.js";
import type { OutboundTarget } from "../../../src/core/types.js";
import { startFakeDiscord, user, type FakeDiscord } from "../../fakes/discord/index.js";
import { createStore } from "../../../src/infra/store/index.js";
import { testOutbound } from "../../helpers/outbound.js";
import { silentLog } from "../../scheduler/helpers.js";
import { createChannel, type StartedChannel } from "./helpers.js";

const outboundOf = (started: StartedChannel) =>
  testOutbound({ store: outboxStore, log: silentLog, channelOf: () => started.channel });

// Sending needs no gateway session: the channel is built but not started.
let fake: FakeDiscord;
let s: StartedChannel;
let general: OutboundTarget;
let dir: string;
let outboxStore: Awaited<ReturnType<typeof createStore>>;

beforeAll(async () => {
  fake = await startFakeDiscord();
  dir = await mkdtemp(join(tmpdir(), "sb-discord-out-"));
  general = { channel: "discord", chatId: fake.world.general.id };
  outboxStore = await createStore({ url: null, dataDir: dir, log: silentLog });
});
afterAll(async () => {
  await s?.channel.stop();
  await outboxStore.close();
  await fake.close();
});
beforeEach(() => {
  s = createChannel(fake);
  fake.messages.length = 0;
  fake.requests.length = 0;
});

const fenceCount = (text: string) => text.split("\n").filter((line) => line.startsWith("```")).length;

describe("sending to Discord", () => {
  it("splits a long reply at 17 lines without breaking the code block; only the first message answers", async () => {
    const code = Array.from({ length: 30 }, (_, i) => `print(${i})`).join("\n");
    const sent = await s.channel.sendText(general, `Here you go:\n\`\`\`python\n${code}\n\`\`\`\nDone.`, { replyTo: "123456789012345678" });

    expect(sent.length).toBeGreaterThan(1);
    expect(fake.messages.map((m) => m.id)).toEqual(sent.map((m) => m.messageId));
    const contents = fake.messages.map((m) => String(m.payload.content));
    for (const content of contents) {
      expect(content.split("\n").length).toBeLessThanOrEqual(17);
      expect(fenceCount(content) % 2).toBe(0);
    }
    expect(contents[1]!.startsWith("```python\n")).toBe(true);
    expect(fake.messages[0]!.payload).toMatchObject({
      message_reference: { message_id: "123456789012345678", fail_if_not_exists: false },
      allowed_mentions: { parse: [], replied_user: true },
      flags: 4, // SUPPRESS_EMBEDS
    });
    expect(fake.messages.slice(1).every((m) => m.payload.message_reference === undefined)).toBe(true);
  });

  it("sends into the thread, and shows link previews when configured to", async () => {
    s = createChannel(fake, { suppressEmbeds: false });
    const thread = { ...general, threadId: fake.world.helpThread.id };
    await s.channel.sendText(thread, "see https://example.com");
    await s.channel.typing(thread);
    expect(fake.messages[0]).toMatchObject({ channelId: fake.world.helpThread.id });
    expect(fake.messages[0]!.payload.flags).toBeUndefined();
    expect(fake.typing.at(-1)).toBe(fake.world.helpThread.id);
  });

  it("uploads a file as a multipart attachment with its caption, answering the message", async () => {
    const path = join(dir, "report.csv");
    await writeFile(path, "a,b\n1,2\n");
    const sent = await s.channel.sendFile(general, { path, kind: "file", name: "report.csv", mime: "text/csv", caption: "the **report**" }, { replyTo: "123456789012345678" });

    const [message] = fake.messages;
    expect(sent.messageId).toBe(message!.id);
    expect(message!.files).toHaveLength(1);
    expect(message!.files[0]).toMatchObject({ field: "files[0]", name: "report.csv", contentType: "text/csv" });
    expect(message!.files[0]!.bytes.toString()).toBe("a,b\n1,2\n");
    expect(message!.payload).toMatchObject({
      content: "the **report**",
      attachments: [{ id: "0", filename: "report.csv" }],
      message_reference: { message_id: "123456789012345678" },
    });
  });

  it("refuses a file over the upload limit with a clear message and sends nothing", async () => {
    s = createChannel(fake, { maxUploadMB: 0.001 });
    const path = join(dir, "big.bin");
    await writeFile(path, Buffer.alloc(4096));
    await expect(s.channel.sendFile(general, { path, kind: "file", name: "big.bin" })).rejects.toThrow(
      "big.bin is 0.0 MiB; Discord accepts files up to 0.0 MiB here (channels.discord.maxUploadMB), so it was not sent",
    );
    expect(fake.messages).toHaveLength(0);
  });

  it("sends a long caption as text ahead of the file", async () => {
    const path = join(dir, "note.txt");
    await writeFile(path, "x");
    await s.channel.sendFile(general, { path, kind: "file", name: "note.txt", caption: "line\n".repeat(30) });
    expect(fake.messages.map((m) => m.files.length)).toEqual([0, 0, 1]);
    expect(fake.messages[2]!.payload.content).toBe("");
  });

  it("classifies failures for the outbound policy and retries none itself", async () => {
    fake.failNext({ method: "POST", path: /\/messages$/, status: 429, retryAfterSec: 0.05 });
    await expect(s.channel.sendText(general, "a")).rejects.toMatchObject({ failure: { kind: "rate_limited", retryAfterMs: expect.any(Number) } });
    fake.failNext({ method: "POST", path: /\/messages$/, status: 500 });
    await expect(s.channel.sendText(general, "b")).rejects.toMatchObject({ failure: { kind: "unavailable" } });
    fake.failNext({ method: "POST", path: /\/messages$/, status: 403 });
    await expect(s.channel.sendText(general, "c")).rejects.toMatchObject({ failure: { kind: "rejected" } });
    expect(fake.messages).toEqual([]);
  });

  it("through the outbound service: waits out a 429 and sends the message once", async () => {
    fake.failNext({ method: "POST", path: /\/messages$/, status: 429, retryAfterSec: 0.05 });
    const sent = await outboundOf(s).sendText(general, "after the rate limit");
    expect(sent).toHaveLength(1);
    expect(fake.messages.map((m) => m.payload.content)).toEqual(["after the rate limit"]);
    expect(fake.requests.map((r) => r.status)).toEqual([429, 200]);
  });

  it("through the outbound service: retries a 500 and sends the message once", async () => {
    fake.failNext({ method: "POST", path: /\/messages$/, status: 500 });
    await outboundOf(s).sendText(general, "after the outage");
    expect(fake.messages).toHaveLength(1);
    expect(fake.requests.map((r) => r.status)).toEqual([500, 200]);
  });

  it("sends each part with a nonce Discord enforces: the same send repeated creates no second message", async () => {
    const long = Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n");
    const first = await s.channel.sendText(general, long, { idempotencyKey: "reply-1" });
    const again = await s.channel.sendText(general, long, { idempotencyKey: "reply-1" });
    expect(first).toHaveLength(2);
    expect(again.map((m) => m.messageId)).toEqual(first.map((m) => m.messageId));
    expect(fake.messages).toHaveLength(2);
    const nonces = fake.messages.map((m) => m.payload.nonce as string);
    expect(new Set(nonces).size).toBe(2);
    for (const m of fake.messages) expect(m.payload).toMatchObject({ nonce: expect.stringMatching(/^[0-9a-f]{25}$/), enforce_nonce: true });
    await s.channel.sendText(general, long, { idempotencyKey: "reply-2" });
    expect(fake.messages).toHaveLength(4);
  });

  it("through the outbound service: a send whose answer was lost is repeated, and the message posted once", async () => {
    fake.failNext({ method: "POST", path: /\/messages$/, lostAnswer: true });
    const sent = await outboundOf(s).sendText(general, "after a lost answer");
    expect(fake.messages.map((m) => m.payload.content)).toEqual(["after a lost answer"]);
    expect(sent.map((m) => m.messageId)).toEqual([fake.messages[0]!.id]);
    expect(fake.requests.map((r) => r.status)).toEqual([0, 200]);
  });

  it("through the outbound service: a file whose answer was lost is sent again and posted once; never answered, it stays uncertain", async () => {
    const path = join(dir, "chart.png");
    await writeFile(path, "png bytes");
    const file = { path, kind: "image" as const, name: "chart.png" };
    fake.failNext({ method: "POST", path: /\/messages$/, lostAnswer: true });
    const sent = await outboundOf(s).sendFile(general, file);
    expect(fake.messages.map((m) => m.id)).toEqual([sent.messageId]);

    for (let i = 0; i < 3; i++) fake.failNext({ method: "POST", path: /\/messages$/, lostAnswer: true });
    const failure = await outboundOf(s).sendFile(general, file).catch((err: unknown) => err);
    expect(failure).toMatchObject({ failure: { kind: "uncertain" }, repeatableUntil: expect.any(Number) });
    // Two minutes from when the request went out.
    expect((failure as SendError).repeatableUntil! - Date.now()).toBeGreaterThan(100_000);
    expect((failure as SendError).repeatableUntil! - Date.now()).toBeLessThanOrEqual(120_000);
    expect(fake.messages).toHaveLength(2);
  });

  it("through the outbound service: a lost answer followed by 500s keeps its window, which the outbox entry carries", async () => {
    fake.failNext({ method: "POST", path: /\/messages$/, lostAnswer: true });
    fake.failNext({ method: "POST", path: /\/messages$/, status: 500 });
    fake.failNext({ method: "POST", path: /\/messages$/, status: 500 });
    const outbound = outboundOf(s);
    const before = Date.now();
    const delivery = await outbound.deliverText(general, "after an outage", { idempotencyKey: "reply-3" });
    expect(delivery.status).toBe("queued");
    const [entry] = await outbound.outbox.pending();
    expect(entry!.repeatableUntil).toBeGreaterThanOrEqual(before + 120_000 - 1_000);
    expect(entry!.repeatableUntil).toBeLessThanOrEqual(Date.now() + 120_000);
    // The outbox's drain sends it again, within the window: Discord answers with the message it has.
    await outbound.start();
    expect(await outbound.outbox.pending()).toEqual([]);
    await outbound.stop();
    expect(fake.messages.map((m) => m.payload.content)).toEqual(["after an outage"]);
  });

  it("keys a long caption sent ahead of its file: the same send repeated posts neither twice", async () => {
    const path = join(dir, "report.txt");
    await writeFile(path, "x");
    const file = { path, kind: "file" as const, name: "report.txt", caption: "line\n".repeat(30) };
    await s.channel.sendFile(general, file, { idempotencyKey: "file-1" });
    const posted = fake.messages.length;
    await s.channel.sendFile(general, file, { idempotencyKey: "file-1" });
    expect(posted).toBe(3);
    expect(fake.messages).toHaveLength(posted);
  });

  it("without an idempotency key a lost answer stays uncertain: it may have arrived, so it is not repeated", async () => {
    fake.failNext({ method: "POST", path: /\/messages$/, lostAnswer: true });
    await expect(s.channel.sendText(general, "maybe arrived")).rejects.toMatchObject({ failure: { kind: "uncertain" } });
    expect(fake.messages).toHaveLength(1);
    expect(fake.messages[0]!.payload.nonce).toBeUndefined();
  });

  it("opens a DM when the chat id is a user's", async () => {
    const carol = user("carol");
    await s.channel.sendText({ channel: "discord", chatId: carol.id }, "a reminder for you");
    const dm = fake.dmChannelWith(carol);
    expect(fake.messages).toMatchObject([{ channelId: dm.id, payload: { content: "a reminder for you" } }]);
    await s.channel.sendText({ channel: "discord", chatId: carol.id }, "and another");
    expect(fake.requests.filter((r) => r.path.endsWith("/users/@me/channels"))).toHaveLength(1);
  });

  it("counts a message's length in code points, as Discord does: 3000 emoji (6000 UTF-16 units) go in two messages", async () => {
    await s.channel.sendText(general, "😀".repeat(3000));
    const lengths = fake.messages.map((m) => [...String(m.payload.content)].length);
    expect(lengths).toHaveLength(2);
    expect(lengths.reduce((a, b) => a + b)).toBe(3000);
    // The fake refuses what Discord refuses: 2001 code points in one message.
    const direct = await fetch(`${fake.apiUrl}/v10/channels/${general.chatId}/messages`, {
      method: "POST",
      headers: { authorization: `Bot ${fake.token}`, "content-type": "application/json" },
      body: JSON.stringify({ content: "😀".repeat(2001) }),
    });
    expect(await direct.json()).toMatchObject({ code: 50035 });
  });

  it("fails with the channel and Discord's reason, never the message text", async () => {
    const error = await s.channel.sendText({ channel: "discord", chatId: general.chatId, threadId: "999999999999999999" }, "secret words").catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe("Discord message 1 of 1 to channel 999999999999999999 failed: HTTP 404 Unknown Channel");
    expect(JSON.stringify(error)).not.toContain("secret words");
  });
});
