/** The IM Channel tools on Discord: the whole gateway against the fake Discord and the fake LLM server. */
import { afterEach, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { messagePayload, startFakeDiscord, until, user, type FakeDiscord } from "../fakes/discord/index.js";
import { FINAL_ANSWER, lastToolOutput, mixedBatchReceipts, placeHugeFile, placeWorkspaceFile, REPORT, scriptDelivery } from "./delivery-script.js";
import { sineWav } from "./media-fixtures.js";
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

  it("sends a voice artifact as an audio file", async () => {
    const { t, fake, dmId } = await start();
    const wav = sineWav(0.5);
    await placeWorkspaceFile(t.config.dataDir, `discord:${dmId}`, "memo.wav", wav);
    t.fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "deliver_artifacts" } }] },
      { toolCalls: [{ name: "deliver_artifacts", arguments: { artifacts: [{ type: "voice", path: "memo.wav" }] } }] },
      { text: "There you go." },
    );

    say(fake, dmId, "say it");
    await until(() => fake.messages.some((m) => m.payload.content === "There you go."), "the final answer");

    const upload = fake.messages.find((m) => m.files.length > 0);
    expect(upload!.files[0]).toMatchObject({ name: "memo.wav" });
    expect(upload!.files[0]!.bytes.equals(wav)).toBe(true);
    const { receipts } = lastToolOutput<{ receipts: Array<Record<string, unknown>> }>(t.fake);
    expect(receipts[0]).toMatchObject({ status: "delivered", sent_as: "audio", message_id: upload!.id });
  });
});
