/**
 * Feishu replies as they are written: CardKit streaming cards, falling back to reply messages edited in place and
 * then to plain messages; and the acknowledgement reaction. Against the fake Feishu and the fake LLM.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FeishuApi } from "../../../src/channels/feishu/api.js";
import { cardJson } from "../../../src/channels/feishu/format.js";
import type { FeishuApiError } from "../../../src/channels/feishu/http.js";
import { chunkText, codePointLength } from "../../../src/core/text.js";
import { captureLog } from "../../helpers/captured-log.js";
import { startTestGateway, type TestGateway } from "../../e2e/harness.js";
import { textEvent } from "../../fakes/feishu/events.js";
import { startFakeFeishu, type BotSent, type FakeFeishu } from "../../fakes/feishu/index.js";
import type { FakeReply } from "../../fakes/openai-server.js";
import { longMarkdown } from "../../helpers/long-markdown.js";
import { eventually } from "../../helpers/wait.js";
import { closeInOrder } from "../../helpers/close.js";
import { VirtualClock } from "../../helpers/clock.js";

let gw: TestGateway | undefined;
let feishu: FakeFeishu | undefined;
afterEach(() => closeInOrder([gw, feishu]).then(() => (gw = feishu = undefined)));

/** The gateway's live replies, the fake model's streaming and the fake's timestamps all run on it. */
const clock = new VirtualClock();

async function start(settings: Record<string, unknown>): Promise<{ t: TestGateway; fs: FakeFeishu }> {
  feishu = await startFakeFeishu({ now: () => clock.now() });
  gw = await startTestGateway(
    {
      access: { dmPolicy: "open" },
      channels: { web: { enabled: false }, feishu: { appId: feishu.appId, appSecret: feishu.appSecret, domain: feishu.url, ...settings } },
    },
    { clock },
  );
  return { t: gw, fs: feishu };
}

const answer = longMarkdown();
const expected = chunkText(answer, { maxLength: 4000, measure: codePointLength });
// 7.5 characters a millisecond of the test clock, in pieces the gateway handles one by one in real time.
const SLOW = { pieceSize: 600, delayMs: 80 };
const CHAT = "oc_p2p_alice";
const APOLOGY = /^Sorry, I could not get an answer/;

/** The Markdown a message shows: a card's markdown element, a post's text, or a text message. */
function shown(sent: BotSent): string {
  const { content } = sent;
  const body = content.body as { elements?: Array<{ content?: string }> } | undefined;
  if (body?.elements) return body.elements.map((el) => el.content ?? "").join("");
  if (typeof content.text === "string") return content.text;
  const post = content.zh_cn as { content: Array<Array<{ text: string }>> } | undefined;
  return post ? post.content.map((p) => p.map((el) => el.text).join("")).join("\n") : "";
}

const visible = (fs: FakeFeishu) => fs.api.sent.filter((s) => s.chatId === CHAT && !s.deleted);
const visibleTexts = (fs: FakeFeishu) => visible(fs).map(shown);

/** Runs one turn (with `reply` from the model, or what was enqueued) and waits until the chat shows exactly `want`. */
async function turn(t: TestGateway, fs: FakeFeishu, reply: FakeReply | undefined, want: string[]): Promise<string> {
  if (reply) t.fake.enqueue(reply);
  const event = textEvent("write a lot", { chatId: CHAT });
  await fs.pushSocket(event);
  await eventually(() => JSON.stringify(visibleTexts(fs)) === JSON.stringify(want), `the reply ${JSON.stringify(want).slice(0, 80)}…`, 20_000);
  return event.event.message.message_id;
}

/** Times between successive edits of any kind, excluding the closing of streaming mode. */
function editGaps(fs: FakeFeishu): number[] {
  const times = [
    ...fs.api.cardkit.operations.filter((op) => op.kind === "content").map((op) => op.at),
    ...fs.api.messageEdits.edits.map((e) => e.at),
  ].sort((a, b) => a - b);
  return times.slice(1).map((at, i) => at - times[i]!);
}

describe("Feishu streaming cards", () => {
  it("streams a 12,000-character answer into cards, at most an edit a second, ending as the plain reply's messages", async () => {
    const { t, fs } = await start({ streaming: "card" });
    await turn(t, fs, { text: answer, streaming: SLOW }, expected);

    expect(expected.length).toBeGreaterThanOrEqual(3);
    const sent = visible(fs);
    expect(sent.every((s) => s.cardId !== undefined)).toBe(true);
    expect(fs.api.cardkit.operations.filter((op) => op.kind === "content").length).toBeGreaterThan(0);
    expect(editGaps(fs).every((gap) => gap >= 1_000)).toBe(true);
    const streaming = () => sent.filter((s) => fs.api.cardkit.cards.get(s.cardId!)!.json.config.streaming_mode !== false);
    await eventually(() => streaming().length === 0, "every card's streaming mode off");
    expect(fs.api.messageEdits.edits).toHaveLength(0);
    // Every card update was accepted: none had to be sent anew.
    expect(fs.api.sent.filter((s) => s.deleted)).toHaveLength(0);
    expect(sent[0]!.replyTo).toBeDefined();
    expect(sent.slice(1).every((s) => s.replyTo === undefined)).toBe(true);
    const streamedCards = sent.map((s) => s.content.body);

    await gw!.close();
    await fs.close();
    const plain = await start({ streaming: "off" });
    await turn(plain.t, plain.fs, { text: answer, streaming: SLOW }, expected);
    expect(plain.fs.api.cardkit.cards.size).toBe(0);
    // The same cards but for the element id that streaming needs.
    const strip = (body: unknown) => JSON.parse(JSON.stringify(body).replaceAll(',"element_id":"answer"', "")) as unknown;
    expect(streamedCards.map(strip)).toEqual(visible(plain.fs).map((s) => s.content.body));
  });

  it("mentions nobody its streamed text names: every card update and every edited message shows the tags as text", async () => {
    const tags = 'Hi <at id=all></at> and <AT user_id="all">everyone</AT> and <at user_id="ou_1"></at>';
    const pinging = `${tags}\n\n${answer.slice(0, 5_000)}\n\n${tags}`;
    const live = /<at\b/i;
    for (const refuseCards of [false, true]) {
      const { t, fs } = await start({ streaming: "card" });
      if (refuseCards) fs.api.fail(/^\/open-apis\/cardkit\/v1\/cards$/, 100, { status: 400, code: 99991672, msg: "Access denied" });
      t.fake.enqueue({ text: pinging, streaming: { pieceSize: 120, delayMs: 40 } });
      await fs.pushSocket(textEvent("name everyone", { chatId: CHAT }));
      await eventually(() => visibleTexts(fs).join("").length >= pinging.length, "the whole answer", 20_000);

      const cardTexts = [...fs.api.cardkit.cards.values()].flatMap((card) => card.history);
      expect(cardTexts.length > 0 || fs.api.messageEdits.edits.length > 0).toBe(true);
      expect([...cardTexts, ...visibleTexts(fs)].filter((text) => live.test(text))).toEqual([]);
      expect(visibleTexts(fs).join("")).toContain("<\u200bat id=all>");
      await closeInOrder([gw, feishu]);
      gw = feishu = undefined;
    }
  });

  it("edits the reply messages in place when CardKit is refused", async () => {
    const { t, fs } = await start({ streaming: "card" });
    fs.api.fail(/^\/open-apis\/cardkit\/v1\/cards$/, 100, { status: 400, code: 99991672, msg: "Access denied. One of the following scopes is required: [cardkit:card:write]" });
    await turn(t, fs, { text: answer, streaming: SLOW }, expected);

    expect(fs.api.cardkit.cards.size).toBe(0);
    expect(fs.api.messageEdits.edits.length).toBeGreaterThan(0);
    expect(fs.api.messageEdits.edits.every((e) => e.method === "PATCH")).toBe(true);
    expect(editGaps(fs).every((gap) => gap >= 1_000)).toBe(true);
  });

  it("sends a plain message in place of a card whose message Feishu refused", async () => {
    const { t, fs } = await start({ streaming: "card" });
    const refused = { status: 400, code: 230099, msg: "Failed to create card content, ext=ErrCode: 200621; ErrMsg: parse card json err" };
    fs.api.fail(/^\/open-apis\/im\/v1\/messages\/[^/]+\/reply$/, 1, refused);
    await turn(t, fs, { text: answer, streaming: SLOW }, expected);

    expect(visible(fs).every((s) => s.cardId === undefined)).toBe(true);
    expect(fs.api.messageEdits.edits.length).toBeGreaterThan(0);
  });

  it("sends the final parts anew, taking the stale preview back, when edits are refused too", async () => {
    const { t, fs } = await start({ streaming: "card" });
    fs.api.fail(/^\/open-apis\/cardkit\/v1\/cards$/, 100, { status: 400, code: 99991672, msg: "Access denied." });
    fs.api.fail(/^\/open-apis\/im\/v1\/messages\/om_bot_\d+$/, 100, { status: 400, code: 230001, msg: "invalid request param" }, { method: "PATCH" });
    await turn(t, fs, { text: answer, streaming: SLOW }, expected);

    expect(fs.api.sent.some((s) => s.deleted)).toBe(true);
    expect(fs.api.messageEdits.edits).toHaveLength(0);
  });

  it("edits posts with PUT when replies are posts", async () => {
    const { t, fs } = await start({ streaming: "card", replyFormat: "post" });
    const lines = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of a plain answer that grows.`).join("\n");
    await turn(t, fs, { text: lines, streaming: { pieceSize: 20, delayMs: 10 } }, [lines]);

    expect(fs.api.cardkit.cards.size).toBe(0);
    expect(visible(fs)[0]!.msgType).toBe("post");
    expect(fs.api.messageEdits.edits.every((e) => e.method === "PUT")).toBe(true);
  });

  it("waits out a rate limit on a card update and still ends with the whole answer", async () => {
    const { t, fs } = await start({ streaming: "card" });
    fs.api.fail(/\/elements\/answer\/content$/, 2, { status: 400, code: 99991400, msg: "request trigger frequency limit", headers: { "x-ogw-ratelimit-reset": "1" } });
    await turn(t, fs, { text: answer, streaming: SLOW }, expected);
    expect(visible(fs).every((s) => s.cardId !== undefined)).toBe(true);
  });

  it("turns streaming on again when Feishu closed it during a long pause", async () => {
    const { t, fs } = await start({ streaming: "card" });
    t.fake.enqueue({ text: answer, streaming: { pieceSize: 300, delayMs: 75 } });
    await fs.pushSocket(textEvent("write a lot", { chatId: CHAT }));
    const card = await eventually(() => [...fs.api.cardkit.cards.values()][0], "a streaming card", 10_000);
    // What Feishu does to a card left streaming for ten minutes.
    card.json.config.streaming_mode = false;
    await eventually(() => JSON.stringify(visibleTexts(fs)) === JSON.stringify(expected), "the whole answer", 20_000);
    // The card was opened again and kept, not replaced by a new message.
    expect(fs.api.cardkit.operations.some((op) => op.kind === "settings" && op.cardId === card.id)).toBe(true);
    expect(visible(fs)[0]!.cardId).toBe(card.id);
  });

  it("shows a status line on the card while a tool runs", async () => {
    const { t, fs } = await start({ streaming: "card" });
    // The model takes a second to answer after the tool: long enough for the status line to show.
    t.fake.enqueue({ toolCalls: [{ name: "list_directory", arguments: { path: "." } }] }, { text: "Nothing in there.", streaming: { pieceSize: 100, delayMs: 1_000 } });
    await turn(t, fs, undefined, ["Nothing in there."]);

    const history = [...fs.api.cardkit.cards.values()].flatMap((card) => card.history);
    expect(history).toContain("_Running list_directory..._");
  });

  it("replaces the card with the apology when the model fails midway", async () => {
    const { t, fs } = await start({ streaming: "card" });
    t.fake.enqueue({ text: answer, streaming: { pieceSize: 60, delayMs: 30, failAfterChars: 3_000 } });
    await fs.pushSocket(textEvent("write a lot", { chatId: CHAT }));
    await eventually(() => visible(fs)[0], "a streaming card", 10_000);

    await eventually(() => visibleTexts(fs).length === 1 && APOLOGY.test(visibleTexts(fs)[0]!), "the apology alone", 10_000);
    const card = fs.api.cardkit.cards.get(visible(fs)[0]!.cardId!)!;
    await eventually(() => card.json.config.streaming_mode === false, "the card's streaming mode off");
  });

  it("takes the card back when the turn is stopped", async () => {
    const { t, fs } = await start({ streaming: "card" });
    t.fake.enqueue({ text: answer, streaming: { pieceSize: 20, delayMs: 10 } });
    await fs.pushSocket(textEvent("write a lot", { chatId: CHAT }));
    await eventually(() => visible(fs)[0], "a streaming card", 10_000);
    await fs.pushSocket(textEvent("/stop", { chatId: CHAT }));

    await eventually(() => visibleTexts(fs).includes("Stopped the running turn."), "the /stop answer", 10_000);
    await eventually(() => visibleTexts(fs).length === 1, "only the /stop answer left", 5_000);
  });

  it("sends a part anew when its preview message was recalled while it grew", async () => {
    const { t, fs } = await start({ streaming: "preview" });
    // Slow enough that the first 4000-character part grows for seconds after its preview appears.
    const shorter = longMarkdown(6_000);
    t.fake.enqueue({ text: shorter, streaming: { pieceSize: 100, delayMs: 50 } });
    await fs.pushSocket(textEvent("write a lot", { chatId: CHAT }));
    const preview = await eventually(() => visible(fs)[0], "a preview", 10_000);
    preview.deleted = true;
    const want = chunkText(shorter, { maxLength: 4000, measure: codePointLength });
    await eventually(() => JSON.stringify(visibleTexts(fs)) === JSON.stringify(want), "the whole answer", 20_000);
    expect(fs.api.sent.length).toBeGreaterThan(want.length);
    expect(fs.api.cardkit.cards.size).toBe(0);
  });
});

describe("the fake CardKit", () => {
  it("refuses a sequence that does not grow, and text once streaming is closed, as Feishu does", async () => {
    feishu = await startFakeFeishu();
    const api = new FeishuApi({ appId: feishu.appId, appSecret: feishu.appSecret, baseUrl: feishu.url, log: captureLog([]).log });
    const cardId = await api.createCard(cardJson("first", { elementId: "answer" }));
    await api.streamCardText(cardId, "answer", "first words", 1);
    const codeOf = (p: Promise<unknown>) => p.then(() => 0, (err: unknown) => (err as FeishuApiError).code);

    expect(await codeOf(api.streamCardText(cardId, "answer", "stale", 1))).toBe(300317);
    await api.cardSettings(cardId, { streaming_mode: false }, 2);
    expect(await codeOf(api.streamCardText(cardId, "answer", "too late", 3))).toBe(300309);
    expect(feishu.api.cardkit.cards.get(cardId)!.history).toEqual(["first", "first words"]);
  });
});

describe("Feishu acknowledgement", () => {
  it("reacts to the message while its turn runs and takes the reaction back once the reply is out", async () => {
    const { t, fs } = await start({ streaming: "card" });
    const event = textEvent("write a lot", { chatId: CHAT });
    const id = event.event.message.message_id;
    // The reaction comes a second (of the test clock) into the turn: the model answers once it is there.
    const reacted = eventually(() => fs.api.messageEdits.reactions.get(id)?.[0]?.emojiType === "Typing", "the reaction", 10_000);
    t.fake.enqueue({ text: answer, streaming: SLOW, heldUntil: reacted });
    await fs.pushSocket(event);

    await reacted;
    await eventually(() => JSON.stringify(visibleTexts(fs)) === JSON.stringify(expected), "the whole answer", 20_000);
    await eventually(() => fs.api.messageEdits.reactions.get(id)?.length === 0, "the reaction taken back", 10_000);
  });

  it("does not react when ackReaction is null, and a refused reaction does not hold the reply", async () => {
    const off = await start({ streaming: "off", ackReaction: null });
    const id = await turn(off.t, off.fs, { text: "quick" }, ["quick"]);
    expect(off.fs.api.messageEdits.reactions.get(id)).toBeUndefined();

    await gw!.close();
    await off.fs.close();
    const refused = await start({ streaming: "off", ackReaction: "OnIt" });
    refused.fs.api.fail(/\/reactions$/, 1, { status: 400, code: 231001, msg: "reaction type is invalid." });
    await turn(refused.t, refused.fs, { text: "still here" }, ["still here"]);
  });
});
