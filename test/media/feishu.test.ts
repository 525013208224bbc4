/** The IM Channel tools on Feishu: the whole gateway against the fake Feishu and the fake LLM/STT server. */
import { afterEach, describe, expect, it } from "vitest";
import { startTestGateway, userTextsOf, type TestGateway } from "../e2e/harness.js";
import { messageEvent, textEvent } from "../fakes/feishu/events.js";
import { startFakeFeishu, type FakeFeishu } from "../fakes/feishu/index.js";
import { FINAL_ANSWER, lastToolOutput, mixedBatchReceipts, placeHugeFile, placeWorkspaceFile, REPORT, scriptDelivery } from "./delivery-script.js";
import { hasFfmpeg, sineWav } from "./media-fixtures.js";
import { closeInOrder } from "../helpers/close.js";

let gw: TestGateway | undefined;
let feishu: FakeFeishu | undefined;
afterEach(() => closeInOrder([gw, feishu]).then(() => (gw = feishu = undefined)));

const CHAT = "oc_dm_alice";

async function start(): Promise<{ t: TestGateway; feishu: FakeFeishu }> {
  feishu = await startFakeFeishu();
  gw = await startTestGateway({
    // A member, so write_file (workspace) is allowed to them.
    access: { allowFrom: ["feishu:ou_alice"] },
    channels: { web: { enabled: false }, feishu: { appId: feishu.appId, appSecret: feishu.appSecret, domain: feishu.url } },
  });
  return { t: gw, feishu };
}

/** The bot message whose card or text shows `text`. */
const sentWith = (fake: FakeFeishu, text: string) => fake.api.sent.find((s) => JSON.stringify(s.content).includes(text));

describe("IM Channel on Feishu", () => {
  it("uploads what the model wrote, with the message id in the receipt; a mixed batch is not ok", async () => {
    const { t, feishu } = await start();
    await placeHugeFile(t.config.dataDir, `feishu:${CHAT}`);
    scriptDelivery(t.fake);

    await feishu.pushSocket(textEvent("send me the report", { chatId: CHAT }));
    await feishu.waitForSent(3, 15_000);

    const fileMessage = feishu.api.sent.find((s) => s.msgType === "file");
    const upload = feishu.api.files.get(String(fileMessage?.content.file_key));
    expect(upload).toMatchObject({ name: "report.txt", fileType: "stream" });
    expect(upload!.bytes.toString()).toBe(REPORT);
    expect(sentWith(feishu, "Your report")).toBeDefined();
    expect(sentWith(feishu, FINAL_ANSWER)).toBeDefined();
    const [delivered] = mixedBatchReceipts(t.fake);
    expect(delivered!.message_id).toBe(fileMessage!.messageId);
    expect(feishu.api.files.size).toBe(1);
  });

  it("transcribes a voice message into the model's input, and get_voice_file returns its path and transcript", async () => {
    const { t, feishu } = await start();
    const bytes = sineWav(0.5);
    t.fake.transcribeWith(() => ({ text: "book a table for two" }));
    t.fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "get_voice_file" } }] },
      { toolCalls: [{ name: "get_voice_file", arguments: {} }] },
      { text: "Booked." },
    );
    const voice = messageEvent({ chatId: CHAT, messageType: "audio", content: { file_key: "file_v3_voice", duration: 2000 } });
    feishu.api.addResource(voice.event.message.message_id, "file_v3_voice", "file", bytes, "audio/ogg");

    await feishu.pushSocket(voice);
    // The third model request carries get_voice_file's output (the live reply's card may be sent before it).
    await t.fake.waitForRequests(3, 15_000);

    expect(userTextsOf(t.fake.requests[0]!).at(-1)).toMatch(/<untrusted_transcript attachment="1" kind="voice"[^>]*>\nbook a table for two\n/);
    const result = lastToolOutput<{ found: boolean; message_id: string; files: Array<Record<string, unknown>> }>(t.fake);
    expect(result).toMatchObject({
      found: true,
      message_id: voice.event.message.message_id,
      files: [{ path: expect.stringMatching(/^inbox\//), duration_sec: 2, transcript: expect.stringContaining("book a table for two") }],
    });
    // Downloaded once, for the transcription; the tool found it in the workspace.
    expect(feishu.api.resourceRequests).toHaveLength(1);
  });

  it.skipIf(!hasFfmpeg)("sends a voice artifact as an opus audio message with its duration", async () => {
    const { t, feishu } = await start();
    await placeWorkspaceFile(t.config.dataDir, `feishu:${CHAT}`, "memo.wav", sineWav(2));
    t.fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "deliver_artifacts" } }] },
      { toolCalls: [{ name: "deliver_artifacts", arguments: { artifacts: [{ type: "voice", path: "memo.wav" }] } }] },
      { text: "Sent you a voice note." },
    );

    await feishu.pushSocket(textEvent("read it to me", { chatId: CHAT }));
    // The third model request carries deliver_artifacts' receipts; the audio was sent before it. (Counting sent
    // messages raced: the live reply's card can be the first of them.)
    await t.fake.waitForRequests(3, 15_000);

    const audio = feishu.api.sent.find((s) => s.msgType === "audio");
    const upload = feishu.api.files.get(String(audio?.content.file_key));
    expect(upload).toMatchObject({ name: "memo.ogg", fileType: "opus", duration: 2000 });
    expect(upload!.bytes.subarray(0, 4).toString("latin1")).toBe("OggS");
    const { receipts } = lastToolOutput<{ receipts: Array<Record<string, unknown>> }>(t.fake);
    expect(receipts[0]).toMatchObject({ status: "delivered", message_id: audio!.messageId });
  });
});
