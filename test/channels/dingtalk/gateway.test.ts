/**
 * The whole gateway with the DingTalk channel against the fake DingTalk and the fake LLM: Stream delivery,
 * private and group chats, session webhooks and the robot APIs, redelivery, long replies, voice recognition,
 * pictures, files, AI card streaming and a reminder.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../../src/config.js";
import { startTestGateway, userTextsOf, type TestGateway } from "../../e2e/harness.js";
import { startFakeDingtalk, type FakeDingtalk } from "../../fakes/dingtalk/index.js";
import { closeInOrder } from "../../helpers/close.js";
import { eventually } from "../../helpers/wait.js";

let gw: TestGateway | undefined;
let ding: FakeDingtalk | undefined;
afterEach(() => closeInOrder([gw, ding]).then(() => (gw = ding = undefined)));

async function start(settings: Record<string, unknown> = {}, overrides: ConfigInput = {}): Promise<TestGateway> {
  ding = await startFakeDingtalk();
  gw = await startTestGateway({
    ...overrides,
    access: { dmPolicy: "open", groupPolicy: "open", ...overrides.access },
    channels: { web: { enabled: false }, dingtalk: { ...ding.settings(), ...settings } },
  });
  await ding.stream.waitForConnections(1);
  return gw;
}

describe("DingTalk through the gateway", () => {
  it("answers a private message through its session webhook, as Markdown, after acknowledging it", async () => {
    const t = await start();
    t.fake.enqueue({ text: "**Hello** from the model" });
    const message = ding!.robotMessage("你好");
    const ack = await ding!.stream.pushRobot(message);
    expect(ack).toMatchObject({ code: 200, headers: { messageId: expect.any(String) } });
    const [reply] = await ding!.waitForSent(1);
    expect(reply).toMatchObject({ via: "webhook", kind: "markdown", text: "**Hello** from the model" });
    expect(userTextsOf(t.fake.requests[0]!).at(-1)).toContain("你好");
    expect(ding!.stream.opens[0]!.accept).toBe("application/json");
  });

  it("answers a group message that @-mentions the robot, through the group API once the webhook expired", async () => {
    const t = await start();
    t.fake.enqueue({ text: "group answer" });
    await ding!.stream.pushRobot(ding!.robotMessage("what is the status?", { group: "cidGroup123==", webhookMinutes: 0 }));
    const [reply] = await ding!.waitForSent(1);
    expect(reply).toMatchObject({ via: "group", to: "cidGroup123==", kind: "sampleMarkdown", text: "group answer" });
    expect(userTextsOf(t.fake.requests[0]!).at(-1)).toContain("what is the status?");
  });

  it("runs one turn for a message pushed again under a new push id (same msgId)", async () => {
    const t = await start();
    t.fake.enqueue({ text: "only once" }, { text: "sentinel answer" });
    const message = ding!.robotMessage("answer me once", { from: "user77" });
    await ding!.stream.pushRobot(message);
    await ding!.stream.pushRobot(message);
    await ding!.stream.pushRobot(ding!.robotMessage("sentinel", { from: "user77" }));
    const sent = await ding!.waitForSent(2);
    expect(sent.map((m) => m.text)).toEqual(["only once", "sentinel answer"]);
    expect(t.fake.requests).toHaveLength(2);
  });

  it("splits a long reply into messages within maxMessageLength", async () => {
    const t = await start({ maxMessageLength: 1000, replyFormat: "text" });
    const long = Array.from({ length: 60 }, (_, i) => `line ${i} ${"钉钉长消息 ".repeat(10)}`).join("\n");
    t.fake.enqueue({ text: long });
    await ding!.stream.pushRobot(ding!.robotMessage("write a lot", { webhookMinutes: 0 }));
    await eventually(() => ding!.api.sent.some((m) => m.text.includes("line 59")), "the last part");
    const parts = ding!.api.sent;
    expect(parts.length).toBeGreaterThanOrEqual(4);
    expect(parts.every((m) => m.via === "user" && m.kind === "sampleText" && [...m.text].length <= 1000)).toBe(true);
  });

  it("takes DingTalk's recognition of a voice message as its text, and downloads a picture for the model", async () => {
    const t = await start({}, { llm: { vision: true } });
    t.fake.enqueue({ text: "Noted." }, { text: "A picture." });
    await ding!.stream.pushRobot(ding!.robotMessage("", { msgtype: "audio", content: { duration: 3000, downloadCode: "dc-voice", recognition: "明天上午开会" } }));
    await ding!.waitForSent(1);
    expect(userTextsOf(t.fake.requests[0]!).at(-1)).toContain("明天上午开会");
    const png = Buffer.from("89504e470d0a1a0a-fake-png");
    ding!.api.addFile("dc-picture", png);
    await ding!.stream.pushRobot(ding!.robotMessage("", { msgtype: "picture", content: { downloadCode: "dc-picture" } }));
    await ding!.waitForSent(2);
    expect(JSON.stringify(t.fake.requests[1]!.body.messages)).toContain(png.toString("base64"));
  });

  it("sends a file the model made, uploaded to the media store", async () => {
    const t = await start({}, { access: { allowFrom: ["dingtalk:filer01"] } });
    t.fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "write_file" } }, { name: "get_tool_info", arguments: { tool_name: "deliver_artifacts" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "out/report.txt", content: "numbers for the chat" } }] },
      { toolCalls: [{ name: "deliver_artifacts", arguments: { artifacts: [{ type: "file", path: "out/report.txt" }] } }] },
      { text: "Sent the report." },
    );
    await ding!.stream.pushRobot(ding!.robotMessage("send me the report", { from: "filer01" }));
    await eventually(() => ding!.api.sent.some((m) => m.text === "Sent the report."), "the final answer");
    const file = ding!.api.sent.find((m) => m.kind === "sampleFile");
    expect(file).toMatchObject({ via: "user", to: "filer01", param: { fileName: "report.txt", fileType: "txt" } });
    expect(ding!.api.uploads.get(String(file!.param.mediaId))!.bytes.toString()).toBe("numbers for the chat");
  });

  it("streams a live reply into an AI card when a card template is set", async () => {
    const t = await start({ cardTemplateId: "fake-ai-card.schema" });
    const answer = "Streaming answer. ".repeat(40);
    t.fake.enqueue({ text: answer, streaming: { pieceSize: 40, delayMs: 60 } });
    await ding!.stream.pushRobot(ding!.robotMessage("stream please", { from: "streamer" }));
    await eventually(() => [...ding!.api.cards.values()].some((c) => c.finalized), "the card finalized", 10_000);
    const [card] = [...ding!.api.cards.values()];
    expect(card!.openSpaceId).toBe("dtv1.card//IM_ROBOT.streamer");
    expect(card!.updates.at(-1)).toEqual({ content: answer.trim(), isFinalize: true });
    expect(ding!.api.sent).toEqual([]);
  });

  it("delivers a reminder set in a private chat through the robot API", async () => {
    const t = await start();
    t.fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "schedule_task" } }] },
      { toolCalls: [{ name: "schedule_task", arguments: { name: "stand up", message: "Time to stand up!", when: { in: "1 second" } } }] },
      { text: "Sure." },
    );
    await ding!.stream.pushRobot(ding!.robotMessage("remind me in a second to stand up", { from: "lisi01", webhookMinutes: 0 }));
    const reminder = await eventually(() => ding!.api.sent.find((m) => m.text === "Time to stand up!"), "the reminder", 10_000);
    expect(reminder).toMatchObject({ via: "user", to: "lisi01" });
    expect(t.fake.requests).toHaveLength(3);
  });
});
