/** Telegram replies as they are written: drafts in private chats, an edited preview message in groups. */
import { afterEach, describe, expect, it } from "vitest";
import { telegramChunks } from "../../../src/channels/telegram/format.js";
import { TEXT_LIMIT } from "../../../src/channels/telegram/send.js";
import type { StreamingMode } from "../../../src/core/types.js";
import { startTestGateway, type TestGateway } from "../../e2e/harness.js";
import type { FakeReply } from "../../fakes/openai-server.js";
import { faults, startFakeTelegram, type FakeTelegram, type SentRecord } from "../../fakes/telegram/server.js";
import { alice, directChat, groupChat, text } from "../../fakes/telegram/updates.js";
import { longMarkdown } from "../../helpers/long-markdown.js";
import { eventually } from "./harness.js";
import { closeInOrder } from "../../helpers/close.js";
import { VirtualClock } from "../../helpers/clock.js";

let t: TestGateway | undefined;
let tg: FakeTelegram | undefined;
afterEach(() => closeInOrder([t, tg]).then(() => (t = tg = undefined)));

/** The gateway's live replies, the fake model's streaming and the fake's timestamps all run on it. */
const clock = new VirtualClock();
const now = () => clock.now();

async function start(streaming: StreamingMode, ackReaction: string | null = "👀"): Promise<{ t: TestGateway; tg: FakeTelegram }> {
  tg = await startFakeTelegram({ now });
  t = await startTestGateway(
    {
      channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1, streaming, ackReaction } },
      access: { allowFrom: [`telegram:${alice.id}`], groups: [{ chat: `telegram:${groupChat.id}` }] },
    },
    { clock },
  );
  return { t, tg };
}

// 7.5 characters a millisecond of the test clock, in pieces the gateway handles one by one in real time.
const SLOW = { pieceSize: 600, delayMs: 80 };
const group = String(groupChat.id);
const dm = String(alice.id);
const mention = (body: string) => text(groupChat, `@switchboard_test_bot ${body}`);
const botTexts = (fake: FakeTelegram, chatId: string): string[] => fake.visible(chatId).map((s: SentRecord) => s.text ?? "");

/** Runs one turn and waits until the chat shows exactly the expected bot messages. */
async function turn(fake: FakeTelegram, gw: TestGateway, update: Record<string, unknown>, reply: FakeReply, expected: string[], chatId: string): Promise<void> {
  gw.fake.enqueue(reply);
  fake.addUpdate(update);
  await eventually(() => JSON.stringify(botTexts(fake, chatId)) === JSON.stringify(expected), `the reply ${JSON.stringify(expected).slice(0, 80)}…`, 20_000);
}

describe("Telegram streaming", () => {
  const answer = longMarkdown();
  const expected = telegramChunks(answer, TEXT_LIMIT).map((chunk) => chunk.html);

  it("in a group: a preview edited at most once a second, finished as the very messages a plain reply sends", async () => {
    const { t, tg } = await start("draft");
    await turn(tg, t, mention("write a lot"), { text: answer, streaming: SLOW }, expected, group);

    expect(expected.length).toBeGreaterThanOrEqual(3);
    expect(tg.edits.length).toBeGreaterThan(0);
    const times = tg.edits.map((e) => e.at);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1_000);
    expect(tg.drafts).toHaveLength(0);
    const sent = tg.visible(group);
    expect(sent.every((s) => s.parseMode === "HTML")).toBe(true);
    expect(sent[0]!.replyTo).toBeDefined();
    expect(sent.slice(1).every((s) => s.replyTo === undefined)).toBe(true);

    // The same answer without streaming.
    await t.close();
    await tg.close();
    const plain = await start("off");
    await turn(plain.tg, plain.t, mention("write a lot"), { text: answer, streaming: SLOW }, expected, group);
    expect(plain.tg.edits).toHaveLength(0);
  });

  it("in a private chat: drafts while it is written, then the reply with sendMessage", async () => {
    const { t, tg } = await start("draft");
    await turn(tg, t, text(directChat(), "write a lot"), { text: answer, streaming: SLOW }, expected, dm);

    expect(tg.drafts.length).toBeGreaterThanOrEqual(2);
    expect(new Set(tg.drafts.map((d) => d.id)).size).toBe(1);
    expect(tg.edits).toHaveLength(0);
    expect(tg.sent.filter((s) => s.chatId === dm)).toHaveLength(expected.length);
  });

  it("sends the draft again while the text stands still, before Telegram lets it expire", async () => {
    tg = await startFakeTelegram({ now });
    t = await startTestGateway(
      {
        channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1, streaming: "draft", streamingPace: { draftRefreshMs: 1_000 } } },
        access: { allowFrom: [`telegram:${alice.id}`] },
      },
      { clock },
    );
    // The answer comes in one piece, and the stream then takes seconds to end: the draft would stand still (as
    // during a tool run) and expire.
    const slowly = "One piece of a slow answer, long enough to be shown.";
    await turn(tg, t, text(directChat(), "think hard"), { text: slowly, streaming: { pieceSize: 200, delayMs: 2_000 } }, [slowly], dm);

    const repeats = tg.drafts.filter((d, i) => i > 0 && d.text === tg!.drafts[i - 1]!.text);
    expect(repeats.length).toBeGreaterThanOrEqual(2);
    for (const [i, d] of tg.drafts.entries()) if (i > 0) expect(d.at - tg.drafts[i - 1]!.at).toBeGreaterThanOrEqual(900);
  }, 30_000);

  it("falls back to an edited preview when drafts are refused, without losing text", async () => {
    const { t, tg } = await start("draft");
    tg.fail("sendMessageDraft", { kind: "error", code: 400, description: "Bad Request: method is available only for bots with forum topic mode enabled" }, 5);
    await turn(tg, t, text(directChat(), "write a lot"), { text: answer, streaming: SLOW }, expected, dm);

    expect(tg.callsOf("sendMessageDraft")).toHaveLength(1);
    expect(tg.edits.length).toBeGreaterThan(0);
  });

  it("waits out a 429 on an edit and still ends with the whole answer", async () => {
    const { t, tg } = await start("preview");
    tg.fail("editMessageText", faults.tooManyRequests(1), 2);
    await turn(tg, t, mention("write a lot"), { text: answer, streaming: SLOW }, expected, group);

    expect(tg.callsOf("editMessageText").length).toBeGreaterThanOrEqual(3);
  });

  it("ends with the whole answer, nothing sent twice, when an edit's answer was lost", async () => {
    const { t, tg } = await start("preview");
    // The edit reaches Telegram but its answer is lost: the preview stops; the final edits put the rest in place
    // (a part already whole is answered "message is not modified", which counts as done).
    tg.fail("editMessageText", { kind: "dropAfter" }, 1);
    await turn(tg, t, mention("write a lot"), { text: answer, streaming: SLOW }, expected, group);

    expect(tg.sent.filter((s) => s.chatId === group)).toHaveLength(expected.length);
    expect(tg.callsOf("deleteMessage")).toHaveLength(0);
  });

  it("sends a part anew when its preview was deleted while it grew", async () => {
    const { t, tg } = await start("preview");
    // Slow enough that the first 4096-character part grows for seconds after its preview appears.
    const shorter = longMarkdown(6_000);
    t.fake.enqueue({ text: shorter, streaming: { pieceSize: 100, delayMs: 50 } });
    tg.addUpdate(mention("write a lot"));
    const preview = await tg.waitFor(() => tg.visible(group)[0], 10_000);
    preview.deleted = true;
    const want = telegramChunks(shorter, TEXT_LIMIT).map((chunk) => chunk.html);
    await eventually(() => JSON.stringify(botTexts(tg, group)) === JSON.stringify(want), "the whole answer", 20_000);
  });

  it("replaces the preview with the apology when the model fails midway", async () => {
    const { t, tg } = await start("preview");
    t.fake.enqueue({ text: answer, streaming: { pieceSize: 60, delayMs: 30, failAfterChars: 3_000 } });
    tg.addUpdate(mention("write a lot"));
    await tg.waitFor(() => tg.visible(group)[0], 10_000);

    await eventually(() => botTexts(tg, group).length === 1 && /^Sorry, I could not get an answer/.test(botTexts(tg, group)[0]!), "the apology alone", 10_000);
    expect(tg.edits.at(-1)!.text).toMatch(/^Sorry, I could not get an answer/);
  });

  it("takes the preview back when the turn is stopped", async () => {
    const { t, tg } = await start("preview");
    t.fake.enqueue({ text: answer, streaming: { pieceSize: 20, delayMs: 10 } });
    tg.addUpdate(mention("write a lot"));
    await tg.waitFor(() => tg.visible(group)[0], 10_000);
    tg.addUpdate(mention("/stop"));

    await eventually(() => botTexts(tg, group).includes("Stopped the running turn."), "the /stop answer", 10_000);
    await eventually(() => botTexts(tg, group).length === 1, "only the /stop answer left", 5_000);
  });
});

describe("Telegram acknowledgement", () => {
  const answer = longMarkdown();
  const expected = telegramChunks(answer, TEXT_LIMIT).map((chunk) => chunk.html);

  it("reacts to the message while its turn runs and takes the reaction back once the reply is out", async () => {
    const { t, tg } = await start("preview");
    const update = mention("write a lot");
    const key = `${group}/${(update.message as { message_id: number }).message_id}`;
    // The reaction comes a second (of the test clock) into the turn: the model answers once it is there.
    const reacted = tg.waitFor(() => tg.reactions.get(key)?.[0] === "👀");
    t.fake.enqueue({ text: answer, streaming: SLOW, heldUntil: reacted });
    tg.addUpdate(update);

    await reacted;
    await eventually(() => JSON.stringify(botTexts(tg, group)) === JSON.stringify(expected), "the whole answer", 20_000);
    await tg.waitFor(() => tg.reactions.get(key)?.length === 0);
  });

  it("does not react when ackReaction is null, and a refused reaction does not hold the reply", async () => {
    const { t, tg } = await start("off", null);
    t.fake.enqueue({ text: "quick" });
    tg.addUpdate(mention("hi"));
    await eventually(() => botTexts(tg, group)[0] === "quick", "the reply");
    expect(tg.callsOf("setMessageReaction")).toHaveLength(0);

    await t.close();
    await tg.close();
    const refused = await start("off");
    refused.tg.fail("setMessageReaction", { kind: "error", code: 400, description: "Bad Request: REACTION_INVALID" });
    refused.t.fake.enqueue({ text: "still here" });
    refused.tg.addUpdate(mention("hi"));
    await eventually(() => botTexts(refused.tg, group)[0] === "still here", "the reply");
  });
});
