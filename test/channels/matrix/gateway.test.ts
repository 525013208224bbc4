/** The whole gateway with the Matrix channel against the fake homeserver and the fake LLM. */
import { afterEach, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../e2e/harness.js";
import { ACK_DELAY_MS, TYPING_DELAY_MS } from "../../../src/gateway/acknowledge.js";
import { rateLimited, startFakeMatrix, textMessage, type FakeMatrix, type MatrixEvent } from "../../fakes/matrix/index.js";
import { CONVERSATIONS, scriptedModel } from "../../fakes/scripted-model.js";
import { closeInOrder } from "../../helpers/close.js";
import { eventually } from "../../helpers/wait.js";
import { alice } from "./harness.js";

let t: TestGateway | undefined;
let mx: FakeMatrix | undefined;
afterEach(() => closeInOrder([t, mx]).then(() => (t = mx = undefined)));

const stranger = { id: "@stranger:fake.test", name: "Stranger" };

async function start(matrix: Record<string, unknown> = {}): Promise<{ t: TestGateway; mx: FakeMatrix; dm: string }> {
  mx = await startFakeMatrix();
  const dm = mx.createRoom({ people: [alice] });
  t = await startTestGateway({
    channels: { web: { enabled: false }, matrix: { homeserverUrl: mx.url, accessToken: mx.accessToken, syncTimeoutMs: 1_000, ...matrix } },
    access: { allowFrom: [`matrix:${alice.id}`] },
  });
  await synced(mx);
  return { t, mx, dm };
}

/** The channel has stored a sync token: what is posted from now on is answered. */
const synced = (fake: FakeMatrix): Promise<unknown> => eventually(() => fake.syncs.some((s) => s !== undefined), "an incremental sync", 10_000);

const replyTo = (fake: FakeMatrix, eventId: string): Promise<MatrixEvent> =>
  eventually(() => fake.botEvents().find((e) => (e.content["m.relates_to"] as { "m.in_reply_to"?: { event_id: string } } | undefined)?.["m.in_reply_to"]?.event_id === eventId), `the reply to ${eventId}`, 10_000);

describe("Matrix through the gateway", () => {
  it("answers a direct message with the model's Markdown as HTML, mentioning nobody", async () => {
    const { t, mx, dm } = await start({ streaming: "off" });
    t.fake.enqueue({ text: "Hello **Alice** and @room." });
    const question = mx.post(dm, alice.id, textMessage("hi, who are you?"));
    const reply = await replyTo(mx, question);
    expect(reply.content).toMatchObject({ msgtype: "m.text", formatted_body: "<p>Hello <strong>Alice</strong> and @\u2060room.</p>", "m.mentions": {} });
    expect(JSON.stringify(t.fake.requests[0]!.body.messages)).toContain("hi, who are you?");
    expect(JSON.stringify(t.logs)).not.toContain(mx.accessToken);
  });

  it("streams a reply as edits (m.replace) of one message and leaves the final text", async () => {
    const { t, mx, dm } = await start();
    const answer = "A streamed answer that grows piece by piece. ".repeat(8).trim();
    t.fake.enqueue({ text: answer, streaming: { pieceSize: 30, delayMs: 150 } });
    const question = mx.post(dm, alice.id, textMessage("stream please"));
    const preview = await replyTo(mx, question);
    await eventually(() => mx.botEvents().some((e) => (e.content["m.new_content"] as { body?: string } | undefined)?.body === answer), "the final edit", 15_000);
    const edits = mx.botEvents().filter((e) => (e.content["m.relates_to"] as { rel_type?: string } | undefined)?.rel_type === "m.replace");
    expect(edits.length).toBeGreaterThan(0);
    expect(edits.every((e) => (e.content["m.relates_to"] as { event_id: string }).event_id === preview.event_id)).toBe(true);
    expect(mx.botEvents().filter((e) => !e.content["m.new_content"])).toHaveLength(1);
  });

  it("splits a long reply into events under 65,536 bytes, cut at paragraphs", async () => {
    const { t, mx, dm } = await start({ streaming: "off" });
    const paragraph = "All work and no play makes Jack a dull boy. ".repeat(30).trim();
    const long = Array.from({ length: 60 }, () => paragraph).join("\n\n");
    t.fake.enqueue({ text: long });
    mx.post(dm, alice.id, textMessage("tell me a long story"));
    await eventually(() => mx.botEvents().map((e) => String(e.content.body)).join("\n\n") === long, "the whole reply in parts", 15_000);
    expect(mx.botEvents().length).toBeGreaterThan(1);
    for (const e of mx.botEvents()) expect(Buffer.byteLength(JSON.stringify(e.content))).toBeLessThan(65_536);
  });

  it("answers a redelivered event once; after a restart resumes from next_batch: no replay, what came meanwhile answered", async () => {
    const { t, mx, dm } = await start({ streaming: "off" });
    t.fake.respondWith((request) => ({ text: `answer ${t.fake.requests.indexOf(request) + 1}` }));
    const first = mx.post(dm, alice.id, textMessage("first"));
    await replyTo(mx, first);
    // A homeserver that sends the same event again (as after a lost sync answer): answered once.
    mx.events.push({ ...mx.events.find((e) => e.event_id === first)! });
    const marker = mx.post(dm, alice.id, textMessage("marker"));
    await replyTo(mx, marker);
    expect(t.fake.requests).toHaveLength(2);

    await t.gateway.stop();
    const meanwhile = mx.post(dm, alice.id, textMessage("sent while the gateway was down"));
    const syncsBefore = mx.syncs.length;
    await t.restart();
    await replyTo(mx, meanwhile);
    expect(mx.syncs.slice(syncsBefore)).not.toContain(undefined);
    expect(t.fake.requests).toHaveLength(3);
    expect(mx.botEvents().filter((e) => String(e.content.body).startsWith("answer"))).toHaveLength(3);
  });

  it("sends a file the model delivers through the content repository", async () => {
    const { t, mx, dm } = await start({ streaming: "off" });
    t.fake.respondWith(scriptedModel(CONVERSATIONS.find((c) => c.name === "send me that file")!));
    await replyTo(mx, mx.post(dm, alice.id, textMessage("Write a short report on our Q3 numbers to report.md")));
    mx.post(dm, alice.id, textMessage("send me that file"));
    const file = await eventually(() => mx.botEvents().find((e) => e.content.msgtype === "m.file"), "the file", 10_000);
    expect(file.content).toMatchObject({ filename: "report.md", body: "Your report" });
    const mediaId = String(file.content.url).split("/").at(-1)!;
    expect(mx.uploads.get(mediaId)!.data.toString()).toContain("Revenue up 12%");
  });

  it("shows typing and the ack reaction on a slow reply, takes the reaction back, and waits out M_LIMIT_EXCEEDED", async () => {
    const { t, mx, dm } = await start({ streaming: "off" });
    t.fake.enqueue({ text: "slow but sure", delayMs: 2 * Math.max(TYPING_DELAY_MS, ACK_DELAY_MS) });
    mx.failNext(/\/send\/m\.room\.message\//, rateLimited(300));
    const question = mx.post(dm, alice.id, textMessage("take your time"));
    await replyTo(mx, question);
    expect(mx.typing).toContainEqual({ roomId: dm, userId: mx.botUserId });
    const reaction = mx.botEvents("m.reaction").find((e) => (e.content["m.relates_to"] as { event_id: string }).event_id === question)!;
    expect(reaction.content["m.relates_to"]).toMatchObject({ rel_type: "m.annotation", key: "👀" });
    await eventually(() => mx.botEvents("m.room.redaction").find((e) => e.content.redacts === reaction.event_id), "the reaction taken back");
    expect(mx.botEvents().filter((e) => e.content.body === "slow but sure")).toHaveLength(1);
  });

  it("accepts an invitation from an allowed user and not from a stranger (autoJoin invited-by-allowed)", async () => {
    const { t, mx } = await start();
    const fromAlice = mx.createRoom({ people: [alice], invitedBy: alice.id });
    const fromStranger = mx.createRoom({ people: [stranger], invitedBy: stranger.id });
    await eventually(() => mx.membership(fromAlice, mx.botUserId) === "join", "the invitation from alice accepted");
    await eventually(() => t.logs.find((r) => r.roomId === fromStranger && /not accepting a Matrix invitation/.test(r.msg)), "the stranger's invitation declined");
    expect(mx.membership(fromStranger, mx.botUserId)).toBe("invite");
  });
});
