/** The Matrix channel on its own against the fake homeserver: sync, rooms, mentions, threads, sends, media. */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkMatrix } from "../../../src/channels/matrix/check.js";
import { ENCRYPTED_ROOM_NOTICE } from "../../../src/channels/matrix/rooms.js";
import type { SendError } from "../../../src/core/send-error.js";
import { rateLimited, startFakeMatrix, textMessage } from "../../fakes/matrix/index.js";
import { eventually } from "../../helpers/wait.js";
import { alice, bob, matrixSettings, startMatrix, type MatrixHarness } from "./harness.js";

let h: MatrixHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("Matrix channel", () => {
  it("skips the history of the very first sync, then hands over new messages; a restart resumes from next_batch", async () => {
    const fake = await startFakeMatrix();
    const dm = fake.createRoom({ people: [alice] });
    fake.post(dm, alice.id, textMessage("before the bot ever ran"));
    h = await startMatrix({ fake });
    await h.synced();
    fake.post(dm, alice.id, textMessage("hello bot"));
    await eventually(() => h!.received.length === 1, "the new message");
    expect(h.received[0]).toMatchObject({ channel: "matrix", chat: { id: dm, type: "direct" }, sender: { id: alice.id, name: "Alice" }, text: "hello bot", mentionsBot: false });
    await h.channel.stop();
    fake.post(dm, alice.id, textMessage("while the bot was down"));
    const syncsBefore = fake.syncs.length;
    await h.restart();
    await eventually(() => h!.received.length === 2, "the message sent while down");
    expect(h.received.map((m) => m.text)).toEqual(["hello bot", "while the bot was down"]);
    // The restart resumed with the stored token: no second initial sync.
    expect(fake.syncs.slice(syncsBefore)[0]).toMatch(/^s\d+$/);
    expect(fake.syncs.filter((s) => s === undefined)).toHaveLength(1);
  });

  it("in a room: a mention (m.mentions, pill, name) or a reply to the bot addresses it; threads are kept", async () => {
    h = await startMatrix();
    const { fake } = h;
    const room = fake.createRoom({ people: [alice, bob] });
    await h.synced();
    fake.post(room, bob.id, textMessage("just chatting"));
    fake.post(room, alice.id, textMessage("Switchboard: what is up?"));
    fake.post(room, alice.id, textMessage(`hey ${fake.botUserId} look`, { "m.mentions": { user_ids: [fake.botUserId] } }));
    await eventually(() => h!.received.length === 3, "three messages");
    expect(h.received.map((m) => [m.chat.type, m.mentionsBot, m.text])).toEqual([
      ["group", false, "just chatting"],
      ["group", true, "what is up?"],
      ["group", true, "hey look"],
    ]);
    const [botReply] = await h.channel.sendText({ channel: "matrix", chatId: room }, "an answer");
    fake.post(room, bob.id, textMessage("> <@switchboard:fake.test> an answer\n\nand why?", { "m.relates_to": { "m.in_reply_to": { event_id: botReply!.messageId } } }));
    const root = fake.post(room, alice.id, textMessage("thread root"));
    fake.post(room, alice.id, textMessage("in the thread", { "m.relates_to": { rel_type: "m.thread", event_id: root, is_falling_back: true, "m.in_reply_to": { event_id: root } } }));
    await eventually(() => h!.received.length === 6, "the reply and the thread");
    expect(h.received[3]).toMatchObject({ text: "and why?", mentionsBot: true, replyTo: { messageId: botReply!.messageId, fromBot: true } });
    expect(h.received[5]).toMatchObject({ text: "in the thread", chat: { threadId: root } });
    expect(h.received[5]!.replyTo).toBeUndefined();
  });

  it("sends Markdown as HTML, never pings @room, answers into the thread, and a repeated send (same key) is not doubled", async () => {
    h = await startMatrix();
    const { fake } = h;
    const room = fake.createRoom({ people: [alice, bob] });
    await h.synced();
    const to = { channel: "matrix", chatId: room, threadId: "$root" };
    const first = await h.channel.sendText(to, "**Hi** @room, see `x`", { replyTo: "$question", idempotencyKey: "reply:1" });
    const again = await h.channel.sendText(to, "**Hi** @room, see `x`", { replyTo: "$question", idempotencyKey: "reply:1" });
    expect(again).toEqual([expect.objectContaining({ messageId: first[0]!.messageId })]);
    const sent = fake.botEvents();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.content).toMatchObject({
      msgtype: "m.text",
      format: "org.matrix.custom.html",
      formatted_body: "<p><strong>Hi</strong> @\u2060room, see <code>x</code></p>",
      "m.mentions": {},
      "m.relates_to": { rel_type: "m.thread", event_id: "$root", is_falling_back: false, "m.in_reply_to": { event_id: "$question" } },
    });
    expect(String(sent[0]!.content.body)).not.toMatch(/@room/);
  });

  it("sends an answer whole when it fits one event, else in parts cut at paragraphs, each under 65,536 bytes", async () => {
    h = await startMatrix();
    const { fake } = h;
    const room = fake.createRoom({ people: [alice] });
    await h.synced();
    const to = { channel: "matrix", chatId: room };
    const paragraph = "Ünïcödé paragraph with <angle> & ampersands. ".repeat(40).trim();
    expect(await h.channel.sendText(to, Array.from({ length: 10 }, () => paragraph).join("\n\n"))).toHaveLength(1);
    const long = Array.from({ length: 60 }, () => paragraph).join("\n\n");
    const parts = await h.channel.sendText(to, long);
    expect(parts.length).toBeGreaterThan(1);
    const bodies = fake.botEvents().slice(1).map((e) => String(e.content.body));
    expect(bodies.join("\n\n")).toBe(long);
    for (const e of fake.botEvents()) expect(Buffer.byteLength(JSON.stringify(e.content))).toBeLessThan(65_536);
  });

  it("classifies failures: M_LIMIT_EXCEEDED with its retry_after_ms, a 5xx as unavailable, a room it is not in as rejected", async () => {
    h = await startMatrix();
    const { fake } = h;
    const room = fake.createRoom({ people: [alice] });
    const to = { channel: "matrix", chatId: room };
    fake.failNext(/\/send\//, rateLimited(1_500));
    expect(await h.channel.sendText(to, "x", { idempotencyKey: "k" }).catch((e: unknown) => e)).toMatchObject({ failure: { kind: "rate_limited", retryAfterMs: 1_500 } });
    fake.failNext(/\/send\//, { status: 502, errcode: "M_UNKNOWN", error: "Bad gateway" });
    const unavailable = (await h.channel.sendText(to, "x", { idempotencyKey: "k2" }).catch((e: unknown) => e)) as SendError;
    expect(unavailable.kind).toBe("unavailable");
    expect(unavailable.repeatableUntil).toBeGreaterThan(Date.now());
    const other = fake.createRoom({ people: [bob], invitedBy: bob.id });
    const refused = (await h.channel.sendText({ channel: "matrix", chatId: other }, "x").catch((e: unknown) => e)) as SendError;
    expect(refused.kind).toBe("rejected");
    expect(refused.message).toMatch(/M_FORBIDDEN/);
  });

  it("honours retry_after_ms on /sync and keeps receiving", async () => {
    h = await startMatrix();
    const { fake } = h;
    const dm = fake.createRoom({ people: [alice] });
    await h.synced();
    fake.failNext(/\/sync$/, rateLimited(50), 2);
    // The sync already waiting answers this one; the next two are refused.
    fake.post(dm, alice.id, textMessage("before the rate limit"));
    await eventually(() => h!.received.length === 1, "the first message");
    fake.post(dm, alice.id, textMessage("after the rate limit"));
    await eventually(() => h!.received.length === 2, "the message after the rate limit");
    expect(h.logs.filter((r) => r.retryInMs === 50)).toHaveLength(2);
  });

  it("joins on invitation by a known user only; says it cannot read an encrypted room and leaves", async () => {
    const fake = await startFakeMatrix();
    h = await startMatrix({ fake, knownUser: async (id) => id === alice.id });
    await h.synced();
    const fromAlice = fake.createRoom({ people: [alice], invitedBy: alice.id });
    const fromBob = fake.createRoom({ people: [bob], invitedBy: bob.id });
    const encrypted = fake.createRoom({ people: [alice], invitedBy: alice.id, encrypted: true });
    await eventually(() => fake.membership(fromAlice, fake.botUserId) === "join" && fake.membership(encrypted, fake.botUserId) === "leave", "the invitations answered");
    expect(fake.membership(fromBob, fake.botUserId)).toBe("invite");
    const notice = fake.botEvents().find((e) => e.room_id === encrypted)!;
    expect(notice.content.body).toBe(ENCRYPTED_ROOM_NOTICE);
  });

  it("uploads files to the content repository (a voice note marked as one) and downloads what people send", async () => {
    h = await startMatrix();
    const { fake } = h;
    const dm = fake.createRoom({ people: [alice] });
    await h.synced();
    const voice = join(h.dataDir, "note.ogg");
    await writeFile(voice, Buffer.from("OggS opus"));
    await h.channel.sendFile({ channel: "matrix", chatId: dm }, { path: voice, kind: "voice", name: "note.ogg", mime: "audio/ogg", durationSec: 3, caption: "listen" });
    const event = fake.botEvents().at(-1)!;
    expect(event.content).toMatchObject({ msgtype: "m.audio", body: "listen", filename: "note.ogg", info: { mimetype: "audio/ogg", size: 9, duration: 3000 }, "org.matrix.msc3245.voice": {} });
    const mediaId = String(event.content.url).split("/").at(-1)!;
    expect(fake.uploads.get(mediaId)!.data.toString()).toBe("OggS opus");

    fake.post(dm, alice.id, { msgtype: "m.image", body: "cat.png", url: event.content.url, info: { mimetype: "image/png", size: 9 } });
    await eventually(() => h!.received.length === 1, "the image");
    const attachment = h.received[0]!.attachments[0]!;
    expect(attachment).toMatchObject({ kind: "image", name: "cat.png", mime: "image/png" });
    expect((await readFile(await h.channel.download(attachment, join(h.dataDir, "in")))).toString()).toBe("OggS opus");
  });

  it("reports a refused token in status() and in the doctor check", async () => {
    const fake = await startFakeMatrix();
    const good = fake.accessToken;
    fake.accessToken = "syt_rotated";
    h = await startMatrix({ fake, settings: { accessToken: good } });
    await eventually(() => h!.channel.status().detail?.includes("access token was refused"), "the refusal");
    await expect(checkMatrix(matrixSettings(fake, { accessToken: good }))).rejects.toThrow(/M_UNKNOWN_TOKEN/);
    expect(await checkMatrix(matrixSettings(fake))).toMatch(/token valid for @switchboard:fake.test .*Client-Server v1.11/);
  });

  it("after a long downtime in a busy room fetches the gap a limited timeline leaves, and answers every message once", async () => {
    h = await startMatrix();
    const { fake } = h;
    const dm = fake.createRoom({ people: [alice] });
    const room = fake.createRoom({ people: [alice, bob] });
    await h.synced();
    await h.channel.stop();
    for (let i = 1; i <= 250; i += 1) fake.post(i % 2 === 0 ? dm : room, alice.id, textMessage(`message ${i}`));
    await h.restart();
    await eventually(() => h!.received.length === 250, "all 250 messages", 10_000);
    const texts = h.received.map((m) => m.text);
    expect(new Set(texts).size).toBe(250);
    expect(texts.filter((t) => Number(t.split(" ")[1]) % 2 === 0)).toEqual(Array.from({ length: 125 }, (_, i) => `message ${2 * (i + 1)}`));
  });

  it("ignores notices (what bots send) and edits", async () => {
    h = await startMatrix();
    const { fake } = h;
    const dm = fake.createRoom({ people: [alice] });
    await h.synced();
    fake.post(dm, alice.id, { msgtype: "m.notice", body: "I am another bot" });
    const original = fake.post(dm, alice.id, textMessage("typo"));
    fake.post(dm, alice.id, textMessage("* fixed", { "m.new_content": textMessage("fixed"), "m.relates_to": { rel_type: "m.replace", event_id: original } }));
    fake.post(dm, alice.id, textMessage("marker"));
    await eventually(() => h!.received.some((m) => m.text === "marker"), "the marker");
    expect(h.received.map((m) => m.text)).toEqual(["typo", "marker"]);
  });

  it("autoJoin always joins any invitation, never joins none; an encrypted message in a joined room is reported once", async () => {
    const fake = await startFakeMatrix();
    h = await startMatrix({ fake, settings: { autoJoin: "always" } });
    await h.synced();
    const anyone = fake.createRoom({ people: [bob], invitedBy: bob.id });
    await eventually(() => fake.membership(anyone, fake.botUserId) === "join", "the invitation accepted");
    for (let i = 0; i < 2; i += 1) fake.post(anyone, bob.id, { algorithm: "m.megolm.v1.aes-sha2", ciphertext: "AwgA..." }, "m.room.encrypted");
    fake.post(anyone, bob.id, textMessage("Switchboard: marker"));
    await eventually(() => h!.received.length === 1, "the marker");
    expect(h.logs.filter((r) => /cannot read encrypted rooms/.test(r.msg))).toHaveLength(1);
    await h.channel.stop();
    await h.store.close();

    h = await startMatrix({ fake, settings: { autoJoin: "never" } });
    await h.synced();
    const declined = fake.createRoom({ people: [alice], invitedBy: alice.id });
    await eventually(() => h!.logs.find((r) => r.roomId === declined && /not accepting/.test(r.msg)), "the invitation declined");
    expect(fake.membership(declined, fake.botUserId)).toBe("invite");
  });

  it("the fake homeserver refuses what a homeserver refuses: an event over 65,536 bytes, a missing body, a wrong token", async () => {
    const fake = await startFakeMatrix();
    const room = fake.createRoom({ people: [alice] });
    const put = (content: unknown, token = fake.accessToken) =>
      fetch(`${fake.url}/_matrix/client/v3/rooms/${encodeURIComponent(room)}/send/m.room.message/t${Math.random()}`, { method: "PUT", headers: { authorization: `Bearer ${token}` }, body: JSON.stringify(content) });
    const tooLarge = await put(textMessage("x".repeat(70_000)));
    expect([tooLarge.status, await tooLarge.json()]).toEqual([413, { errcode: "M_TOO_LARGE", error: "event too large" }]);
    expect((await put({ msgtype: "m.text" })).status).toBe(400);
    const wrong = await put(textMessage("hi"), "syt_wrong");
    expect([wrong.status, ((await wrong.json()) as { errcode: string }).errcode]).toEqual([401, "M_UNKNOWN_TOKEN"]);
    await fake.close();
  });
});
