/** The IM Channel tools on Discord: the whole gateway against the fake Discord and the fake LLM server. */
import { afterEach, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { messagePayload, startFakeDiscord, until, user, type FakeDiscord } from "../fakes/discord/index.js";
import { FINAL_ANSWER, lastToolOutput, mixedBatchReceipts, placeHugeFile, placeWorkspaceFile, REPORT, scriptDelivery } from "./delivery-script.js";
import { hasFfmpeg, sineWav } from "./media-fixtures.js";
import { closeInOrder } from "../helpers/close.js";

let fake: FakeDiscord | undefined;
let t: TestGateway | undefined;
afterEach(() => closeInOrder([t, fake]).then(() => (t = fake = undefined)));

const alice = user("alice");

/** The gateway with Alice as a member (so write_file is hers to use), and her DM channel. */
async function start(): Promise<{ t: TestGateway; fake: FakeDiscord; dmId: string }> {
  fake = await startFakeDiscord();
  t = await startTestGateway({
    channels: { discord: { token: fake.token, apiUrl: fake.apiUrl } },
    access: { allowFrom: [`discord:${alice.id}`] },
  });
  return { t, fake, dmId: fake.dmChannelWith(alice).id };
}

function say(discord: FakeDiscord, channelId: string, content: string): void {
  discord.dispatch("MESSAGE_CREATE", messagePayload({ channelId, author: alice, content }));
}

describe("IM Channel on Discord", () => {
  it("uploads what the model wrote, with the message id in the receipt; a mixed batch is not ok", async () => {
    const { t, fake, dmId } = await start();
    await placeHugeFile(t.config.dataDir, `discord:${dmId}`);
    scriptDelivery(t.fake);

    say(fake, dmId, "send me the report");
    await until(() => fake.messages.some((m) => m.payload.content === FINAL_ANSWER), "the final answer");

    const upload = fake.messages.find((m) => m.files.length > 0);
    expect(upload).toMatchObject({ channelId: dmId, payload: { content: "Your report" } });
    expect(upload!.files.map((f) => [f.name, f.bytes.toString()])).toEqual([["report.txt", REPORT]]);
    const [delivered] = mixedBatchReceipts(t.fake);
    expect(delivered!.message_id).toBe(upload!.id);
    expect(fake.messages.filter((m) => m.files.length > 0)).toHaveLength(1);
  });

  it.skipIf(!hasFfmpeg)("sends a voice artifact as a voice message: Ogg/Opus with its duration and waveform", async () => {
    const { t, fake, dmId } = await start();
    await placeWorkspaceFile(t.config.dataDir, `discord:${dmId}`, "memo.wav", sineWav(2));
    t.fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "deliver_artifacts" } }] },
      { toolCalls: [{ name: "deliver_artifacts", arguments: { artifacts: [{ type: "voice", path: "memo.wav", caption: "Your memo" }] } }] },
      { text: "There you go." },
    );

    say(fake, dmId, "say it");
    await until(() => fake.messages.some((m) => m.payload.content === "There you go."), "the final answer");

    const upload = fake.messages.find((m) => m.files.length > 0);
    expect(upload!.files[0]).toMatchObject({ name: "memo.ogg" });
    expect(upload!.files[0]!.bytes.subarray(0, 4).toString("latin1")).toBe("OggS");
    expect(Number(upload!.payload.flags) & (1 << 13)).toBe(1 << 13);
    expect(upload!.payload).toMatchObject({ content: "", attachments: [{ id: "0", filename: "memo.ogg", duration_secs: 2, waveform: expect.any(String) }] });
    // A voice message carries nothing else: its caption went ahead of it as text.
    const caption = fake.messages.find((m) => m.payload.content === "Your memo");
    expect(BigInt(caption!.id)).toBeLessThan(BigInt(upload!.id));
    const { receipts } = lastToolOutput<{ receipts: Array<Record<string, unknown>> }>(t.fake);
    expect(receipts[0]).toMatchObject({ status: "delivered", message_id: upload!.id });
  });
});
