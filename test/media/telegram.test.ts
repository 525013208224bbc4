/** The IM Channel tools on Telegram: the whole gateway against the fake Bot API and the fake LLM/STT server. */
import { afterEach, describe, expect, it } from "vitest";
import type { Receipt } from "../../src/media/receipts.js";
import { startTestGateway, userTextsOf, type TestGateway } from "../e2e/harness.js";
import { startFakeTelegram, type FakeTelegram, type SentRecord } from "../fakes/telegram/server.js";
import { alice, directChat, messageOf, messageUpdate, text } from "../fakes/telegram/updates.js";
import { FINAL_ANSWER, lastToolOutput, mixedBatchReceipts, placeHugeFile, placeWorkspaceFile, REPORT, scriptDelivery } from "./delivery-script.js";
import { PNG, sineWav } from "./media-fixtures.js";
import { closeInOrder } from "../helpers/close.js";

let t: TestGateway | undefined;
let tg: FakeTelegram | undefined;
afterEach(() => closeInOrder([t, tg]).then(() => (t = tg = undefined)));

const SESSION = `telegram:${alice.id}`;

async function start(): Promise<{ t: TestGateway; tg: FakeTelegram }> {
  tg = await startFakeTelegram();
  t = await startTestGateway({
    channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1 } },
    access: { allowFrom: [`telegram:${alice.id}`] },
  });
  return { t, tg };
}

/** Sends `update` and resolves with the bot's text reply to it. */
async function ask(fake: FakeTelegram, update: Record<string, unknown>): Promise<SentRecord> {
  fake.addUpdate(update);
  const id = messageOf(update).message_id;
  return fake.waitFor(() => fake.sent.find((s) => s.method === "sendMessage" && s.replyTo === id), 15_000);
}

async function deliverImage(gw: TestGateway, fake: FakeTelegram): Promise<Receipt> {
  gw.fake.enqueue(
    { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "deliver_artifacts" } }] },
    { toolCalls: [{ name: "deliver_artifacts", arguments: { artifacts: [{ type: "image", path: "chart.png" }] } }] },
    { text: "done" },
  );
  await ask(fake, text(directChat(), "send the chart"));
  return lastToolOutput<{ receipts: Receipt[] }>(gw.fake).receipts[0]!;
}

describe("IM Channel on Telegram", () => {
  it("uploads what the model wrote, with the message id in the receipt; a mixed batch is not ok", async () => {
    const { t, tg } = await start();
    await placeHugeFile(t.config.dataDir, SESSION);
    scriptDelivery(t.fake);

    const reply = await ask(tg, text(directChat(), "send me the report"));

    expect(reply.text).toBe(FINAL_ANSWER);
    const upload = tg.sent.find((s) => s.method === "sendDocument");
    expect(upload).toMatchObject({ chatId: String(alice.id), caption: "Your report", file: { field: "document", filename: "report.txt" } });
    expect(upload!.file!.data.toString()).toBe(REPORT);
    const [delivered] = mixedBatchReceipts(t.fake);
    expect(delivered!.message_id).toBe(String(upload!.messageId));
    expect(tg.sent.filter((s) => s.file)).toHaveLength(1);
  });

  it("sends an image Telegram refuses as a photo as a document", async () => {
    const { t, tg } = await start();
    await placeWorkspaceFile(t.config.dataDir, SESSION, "chart.png", PNG);
    tg.fail("sendPhoto", { kind: "error", code: 400, description: "Bad Request: PHOTO_INVALID_DIMENSIONS" });

    const receipt = await deliverImage(t, tg);

    expect(receipt).toMatchObject({ status: "delivered", sent_as: "file" });
    const document = tg.sent.find((s) => s.method === "sendDocument");
    expect(document?.file?.data.equals(PNG)).toBe(true);
    expect(receipt.message_id).toBe(String(document!.messageId));
  });

  it("does not send an image again as a document when the photo upload's answer was lost", async () => {
    const { t, tg } = await start();
    await placeWorkspaceFile(t.config.dataDir, SESSION, "chart.png", PNG);
    tg.fail("sendPhoto", { kind: "dropAfter" });

    const receipt = await deliverImage(t, tg);

    expect(receipt).toMatchObject({ status: "failed", error_code: "timeout" });
    expect(tg.sent.filter((s) => s.method === "sendPhoto")).toHaveLength(1);
    expect(tg.sent.filter((s) => s.method === "sendDocument")).toHaveLength(0);
  });

  it("transcribes a voice message into the model's input, and get_voice_file returns its path and transcript", async () => {
    const { t, tg } = await start();
    const bytes = sineWav(0.5);
    t.fake.transcribeWith(() => ({ text: "what is the weather tomorrow" }));
    t.fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "get_voice_file" } }] },
      { toolCalls: [{ name: "get_voice_file", arguments: {} }] },
      { text: "Sunny." },
    );
    const voice = tg.addFile(bytes);

    const reply = await ask(tg, messageUpdate(directChat(), { voice: { ...voice, duration: 3, mime_type: "audio/ogg" } }));

    expect(reply.text).toBe("Sunny.");
    expect(userTextsOf(t.fake.requests[0]!).at(-1)).toMatch(/<untrusted_transcript attachment="1" kind="voice"[^>]*>\nwhat is the weather tomorrow\n/);
    expect(t.fake.transcriptions.map((r) => r.audio.equals(bytes))).toEqual([true]);
    const result = lastToolOutput<{ found: boolean; files: Array<{ path: string; transcript: string; duration_sec: number }> }>(t.fake);
    expect(result.found).toBe(true);
    expect(result.files[0]).toMatchObject({ path: expect.stringMatching(/^inbox\//), duration_sec: 3, transcript: expect.stringContaining("what is the weather tomorrow") });
    expect(tg.callsOf("getFile")).toHaveLength(1);
  });
});
