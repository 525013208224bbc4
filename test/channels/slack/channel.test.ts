/** The Slack channel on its own against the fake Slack: starting, reconnecting, receiving, failures classified. */
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SendError } from "../../../src/core/send-error.js";
import { alice, bot, dmOf, general, messageEvent, startFakeSlack, type FakeSlack } from "../../fakes/slack/index.js";
import { eventually } from "../../helpers/wait.js";
import { slackChannel, startSlack, type StartedChannel } from "./harness.js";

let fake: FakeSlack | undefined;
let started: StartedChannel | undefined;
afterEach(async () => {
  await started?.channel.stop();
  await fake?.close();
  started = fake = undefined;
});

const dm = { channel: "slack", chatId: dmOf(alice) };

describe("Slack channel", () => {
  it("refuses to start with a token Slack does not take, saying what to fix", async () => {
    fake = await startFakeSlack();
    started = slackChannel(fake, { botToken: "xoxb-wrong" });
    await expect(started.channel.start(async () => "answered")).rejects.toThrow(/invalid_auth: check SLACK_BOT_TOKEN/);
    const wrongApp = slackChannel(fake, { appToken: "xapp-wrong" });
    await expect(wrongApp.channel.start(async () => "answered")).rejects.toThrow(/invalid_auth.*SLACK_APP_TOKEN/);
    const botAsApp = slackChannel(fake, { appToken: fake.botToken });
    await expect(botAsApp.channel.start(async () => "answered")).rejects.toThrow(/not_allowed_token_type/);
  });

  it("starts through an outage, reports it, and connects when Slack is back", async () => {
    fake = await startFakeSlack();
    fake.api.failNext("auth.test", { status: 503 });
    started = await startSlack(fake);
    expect(started.channel.status()).toEqual({ connected: false, detail: "HTTP 503" });
    await eventually(() => started!.channel.status().connected, "connected after the outage");
    fake.pushEvent(messageEvent({ channel: dmOf(alice), user: alice, text: "after the outage" }));
    await eventually(() => started!.received.length === 1, "the message");
  });

  it("reconnects when Slack asks it to, or the socket dies, and receives on the new connection", async () => {
    fake = await startFakeSlack();
    started = await startSlack(fake);
    await eventually(() => started!.channel.status().connected, "connected");
    fake.socket.requestDisconnect();
    await eventually(() => fake!.socket.connections === 2 && started!.channel.status().connected, "the second connection");
    fake.socket.kill();
    await eventually(() => fake!.socket.connections === 3 && started!.channel.status().connected, "the third connection");
    fake.pushEvent(messageEvent({ channel: dmOf(alice), user: alice, text: "still there?" }));
    await eventually(() => started!.received.length === 1, "the message on the new connection");
    expect(fake.api.calls.filter((c) => c.method === "apps.connections.open")).toHaveLength(3);
  });

  it("acknowledges and skips what is not a person's message: malformed events, its own, edits, joins, other events", async () => {
    fake = await startFakeSlack();
    started = await startSlack(fake);
    await eventually(() => started!.channel.status().connected, "connected");
    fake.pushEvent({ type: "message", channel: general, user: alice.id, text: "no ts" });
    fake.pushEvent({ ...messageEvent({ channel: general, user: alice, text: "mine" }), user: bot.userId });
    fake.pushEvent(messageEvent({ channel: general, user: alice, text: "edited", subtype: "message_changed" }));
    fake.pushEvent(messageEvent({ channel: general, user: alice, text: "joined", subtype: "channel_join" }));
    fake.pushEvent({ type: "team_join", user: { id: "U0NEW" } });
    fake.socket.push("events_api", { type: "not_a_callback" });
    fake.socket.push("events_api", { type: "event_callback", event: { type: "message" } });
    fake.pushEvent(messageEvent({ channel: dmOf(alice), user: alice, text: "the real one" }));
    await eventually(() => started!.received.length === 1, "the one message");
    await eventually(() => fake!.socket.envelopes.every((e) => e.ackedAfterMs !== undefined), "every envelope acknowledged");
    expect(started.received[0]).toMatchObject({ id: expect.stringMatching(/^slack:D0ALICE001:/), text: "the real one", chat: { type: "direct", space: "T0FAKE0001" }, sender: { id: alice.id } });
    expect(started.logs.some((l) => l.msg === "malformed Slack message event; skipped")).toBe(true);
    expect(started.logs.some((l) => l.msg === "malformed Slack event callback; skipped")).toBe(true);
  });

  it("classifies failed sends: 429 with its wait, 5xx, refusals, errors that may have posted, no connection", async () => {
    fake = await startFakeSlack();
    started = await startSlack(fake);
    const failure = async () => (await started!.channel.sendText(dm, "hello").catch((err: unknown) => err)) as SendError;

    fake.api.failNext("chat.postMessage", { status: 429, retryAfter: 7 });
    expect((await failure()).failure).toEqual({ kind: "rate_limited", retryAfterMs: 7_000 });
    fake.api.failNext("chat.postMessage", { error: "ratelimited" });
    expect((await failure()).kind).toBe("rate_limited");
    fake.api.failNext("chat.postMessage", { status: 502 });
    expect((await failure()).kind).toBe("unavailable");
    fake.api.failNext("chat.postMessage", { error: "msg_too_long" });
    const tooLong = await failure();
    expect(tooLong).toBeInstanceOf(SendError);
    expect(tooLong.kind).toBe("rejected");
    expect(tooLong.message).toMatch(/Slack message 1 of 1 to D0ALICE001 failed: Slack refused: msg_too_long/);
    fake.api.failNext("chat.postMessage", { error: "internal_error" });
    expect((await failure()).kind).toBe("uncertain");
    const nowhere = (await started.channel.sendText({ channel: "slack", chatId: "C0NOWHERE" }, "x").catch((err: unknown) => err)) as SendError;
    expect([nowhere.kind, nowhere.message]).toEqual(["rejected", expect.stringContaining("channel_not_found")]);

    // Nothing listens there: the request cannot have arrived.
    const unreachable = slackChannel(fake, { apiUrl: "http://127.0.0.1:9/api/" });
    const gone = (await unreachable.channel.sendText(dm, "hello").catch((err: unknown) => err)) as SendError;
    expect([gone.kind, gone.message]).toEqual(["unavailable", expect.stringContaining("no answer (ECONNREFUSED)")]);
  });

  it("a failure after the first part carries the part that arrived; fromPart resumes after it", async () => {
    fake = await startFakeSlack();
    started = await startSlack(fake);
    const long = `${"a".repeat(3_990)}\n\n${"b".repeat(20)}`;
    fake.api.failNext("chat.postMessage", { status: 500 }, 1);
    const failure = (await started.channel.sendText(dm, long).catch((err: unknown) => err)) as SendError;
    expect(failure.kind).toBe("unavailable");
    expect(failure.sent.map((m) => m.messageId)).toEqual([fake.api.sent()[0]!.ts]);
    await started.channel.sendText(dm, long, { fromPart: failure.sent.length });
    expect(fake.api.sent().map((m) => m.text[0])).toEqual(["a", "b"]);
  });

  it("sends a file to a person named by user id into the bot's DM with them", async () => {
    fake = await startFakeSlack();
    started = await startSlack(fake);
    const dir = await mkdtemp(join(tmpdir(), "slack-upload-"));
    const path = join(dir, "note.txt");
    await writeFile(path, "for alice");
    const sent = await started.channel.sendFile({ channel: "slack", chatId: alice.id }, { path, kind: "file", name: "note.txt", caption: "**Here** <!channel>" });
    const upload = fake.api.uploads.get(sent.messageId)!;
    expect([upload.channel, upload.data?.toString(), upload.comment]).toEqual([dmOf(alice), "for alice", "*Here* &lt;!channel&gt;"]);
    expect(fake.api.pings).toEqual([]);
    const tooBig = slackChannel(fake, { maxUploadMB: 0.000001 });
    await expect(tooBig.channel.sendFile(dm, { path, kind: "file", name: "note.txt" })).rejects.toMatchObject({ kind: "rejected", message: expect.stringMatching(/maxUploadMB/) });
  });

  it("downloads a shared file with the bot token, and sends the token to no other host", async () => {
    fake = await startFakeSlack();
    started = await startSlack(fake);
    const shared = fake.serveFile("notes.txt", Buffer.from("private notes"), "text/plain");
    fake.pushEvent(messageEvent({ channel: dmOf(alice), user: alice, text: "see attached", files: [shared] }));
    await eventually(() => started!.received.length === 1, "the message");
    const [attachment] = started.received[0]!.attachments;
    expect(attachment).toMatchObject({ kind: "file", name: "notes.txt", mime: "text/plain", size: 13 });
    const into = await mkdtemp(join(tmpdir(), "slack-download-"));
    expect(await readFile(await started.channel.download(attachment!, into), "utf8")).toBe("private notes");

    await expect(started.channel.download({ ...attachment!, ref: "http://127.0.0.2:9/steal" }, into)).rejects.toThrow(/Refusing to send the bot token to http:\/\/127\.0\.0\.2:9/);
    await expect(started.channel.download({ ...attachment!, size: 999 * 1024 * 1024 }, into)).rejects.toThrow(/download limit/);
  });
});
