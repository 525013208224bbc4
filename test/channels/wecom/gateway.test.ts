/**
 * The whole gateway with the WeCom channel against the fake WeCom and the fake LLM: URL verification, encrypted
 * callbacks answered through the message API, refusals, retries answered once, long replies within 2,048 bytes,
 * voice through ffmpeg, files, buttons, an expired token, and a reminder.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../../src/config.js";
import { startTestGateway, userTextsOf, type TestGateway } from "../../e2e/harness.js";
import { messageXml, nextMsgId, startFakeWecom, textXml, type FakeWecom } from "../../fakes/wecom/index.js";
import { closeInOrder } from "../../helpers/close.js";
import { eventually } from "../../helpers/wait.js";

let gw: TestGateway | undefined;
let wecom: FakeWecom | undefined;
afterEach(() => closeInOrder([gw, wecom]).then(() => (gw = wecom = undefined)));

async function start(settings: Record<string, unknown> = {}, overrides: ConfigInput = {}): Promise<{ t: TestGateway; callback: string }> {
  wecom = await startFakeWecom();
  gw = await startTestGateway({
    ...overrides,
    access: { dmPolicy: "open", groupPolicy: "open", ...overrides.access },
    channels: { web: { enabled: false }, wecom: { ...wecom.settings(), ...settings } },
  });
  return { t: gw, callback: `${gw.url}/wecom/callback` };
}

/** An AMR-NB file: the header and one second of 4.75 kbit/s frames. */
function amrSecond(): Buffer {
  const frame = Buffer.concat([Buffer.from([0x04]), Buffer.alloc(12)]);
  return Buffer.concat([Buffer.from("#!AMR\n"), ...Array.from({ length: 50 }, () => frame)]);
}

describe("WeCom through the gateway", () => {
  it("answers the URL verification with the plaintext alone, and refuses a wrong signature", async () => {
    const { callback } = await start();
    const answer = await wecom!.verifyUrl(callback);
    expect(answer).toMatchObject({ status: 200, body: answer.plain });
    expect((await wecom!.verifyUrl(callback, { signature: "0".repeat(40) })).status).toBe(401);
  });

  it("answers a private message through the message API, as markdown", async () => {
    const { t, callback } = await start();
    t.fake.enqueue({ text: "**Hello** from the model" });
    const pushed = await wecom!.pushText(callback, "zhangsan", "你好，机器人");
    expect(pushed).toEqual({ status: 200, body: "" });
    const [reply] = await wecom!.waitForSent(1);
    expect(reply).toMatchObject({ via: "user", to: "zhangsan", msgtype: "markdown", text: "**Hello** from the model" });
    expect(userTextsOf(t.fake.requests[0]!).at(-1)).toContain("你好，机器人");
  });

  it("refuses a wrong signature (401) and a wrong corp id (403), processing nothing", async () => {
    const { t, callback } = await start();
    const xml = textXml(wecom!.keys, "lisi", "forged");
    expect((await wecom!.push(callback, xml, { signature: "f".repeat(40) })).status).toBe(401);
    expect((await wecom!.push(callback, xml, { corpId: "ww_someone_else" })).status).toBe(403);
    const garbage = await fetch(`${callback}?msg_signature=a&timestamp=1&nonce=2`, { method: "POST", body: "not xml" });
    expect(garbage.status).toBe(400);
    // A sentinel after the refusals: only it reaches the model.
    t.fake.enqueue({ text: "sentinel answer" });
    await wecom!.pushText(callback, "lisi", "sentinel");
    await wecom!.waitForSent(1);
    expect(t.fake.requests).toHaveLength(1);
    expect(userTextsOf(t.fake.requests[0]!).join("\n")).not.toContain("forged");
  });

  it("answers WeCom's retries of one MsgId once", async () => {
    const { t, callback } = await start();
    t.fake.enqueue({ text: "only once" }, { text: "sentinel answer" });
    const xml = textXml(wecom!.keys, "wangwu", "answer me once", nextMsgId());
    const answers = await Promise.all([wecom!.push(callback, xml), wecom!.push(callback, xml), wecom!.push(callback, xml)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    await wecom!.pushText(callback, "wangwu", "sentinel");
    const sent = await wecom!.waitForSent(2);
    expect(sent.map((m) => m.text)).toEqual(["only once", "sentinel answer"]);
    expect(t.fake.requests).toHaveLength(2);
  });

  it("splits a long reply into parts of at most 2,048 bytes on character boundaries, none truncated", async () => {
    const { t, callback } = await start({ replyFormat: "text" });
    const long = Array.from({ length: 40 }, (_, i) => `第${i}行：${"企业微信的消息长度按字节计算。".repeat(4)}`).join("\n");
    t.fake.enqueue({ text: long });
    await wecom!.pushText(callback, "zhaoliu", "write a lot");
    await eventually(() => wecom!.api.sent.some((m) => m.text.includes("第39行")), "the last part");
    const parts = wecom!.api.sent;
    expect(parts.length).toBeGreaterThanOrEqual(4);
    expect(parts.every((m) => m.msgtype === "text" && !m.truncated && Buffer.byteLength(m.text) <= 2048)).toBe(true);
    expect(parts.map((m) => m.text).join("\n").replace(/\n+/g, "\n")).toBe(long);
  });

  it("converts a voice message from AMR with ffmpeg and has it transcribed", async () => {
    const { t, callback } = await start();
    t.fake.transcribeWith(() => ({ text: "remind me to call mom" }));
    t.fake.enqueue({ text: "Noted." });
    wecom!.api.addMedia("media-voice-1", amrSecond(), "audio/amr");
    await wecom!.push(callback, messageXml(wecom!.keys, "sunqi", "voice", { MediaId: "media-voice-1", Format: "amr", MsgId: nextMsgId() }));
    await wecom!.waitForSent(1);
    expect(t.fake.transcriptions).toHaveLength(1);
    expect(t.fake.transcriptions[0]!.audio.subarray(0, 4).toString("latin1")).toBe("OggS");
    expect(JSON.stringify(t.fake.requests[0]!.body.messages)).toContain("remind me to call mom");
  });

  it("reads a location message as text", async () => {
    const { t, callback } = await start();
    t.fake.enqueue({ text: "Nice place." });
    await wecom!.push(callback, messageXml(wecom!.keys, "zhouba", "location", { Location_X: "23.134", Location_Y: "113.358", Scale: "20", Label: "广州市天河区", MsgId: nextMsgId() }));
    await wecom!.waitForSent(1);
    expect(userTextsOf(t.fake.requests[0]!).at(-1)).toContain("广州市天河区 (23.134, 113.358)");
  });

  it("sends a file the model made, uploaded as temporary media", async () => {
    const { t, callback } = await start({}, { access: { allowFrom: ["wecom:wujiu"] } });
    t.fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "write_file" } }, { name: "get_tool_info", arguments: { tool_name: "deliver_artifacts" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "out/report.txt", content: "numbers for the chat" } }] },
      { toolCalls: [{ name: "deliver_artifacts", arguments: { artifacts: [{ type: "file", path: "out/report.txt" }] } }] },
      { text: "Sent the report." },
    );
    await wecom!.pushText(callback, "wujiu", "send me the report");
    await eventually(() => wecom!.api.sent.some((m) => m.text === "Sent the report."), "the final answer");
    const file = wecom!.api.sent.find((m) => m.msgtype === "file");
    expect(file).toBeDefined();
    const upload = wecom!.api.uploads.get((file!.body.file as { media_id: string }).media_id)!;
    expect(upload).toMatchObject({ type: "file", name: "report.txt" });
    expect(upload.bytes.toString()).toBe("numbers for the chat");
  });

  it("fetches a new token when WeCom says the old one expired, and sends the reply once", async () => {
    const { t, callback } = await start();
    t.fake.enqueue({ text: "before" }, { text: "after" });
    await wecom!.pushText(callback, "zhengshi", "one");
    await wecom!.waitForSent(1);
    wecom!.api.expireTokens();
    await wecom!.pushText(callback, "zhengshi", "two");
    const sent = await wecom!.waitForSent(2);
    expect(sent.map((m) => m.text)).toEqual(["before", "after"]);
    expect(wecom!.api.tokensIssued).toBe(2);
    const logged = JSON.stringify(t.logs);
    expect(logged).not.toContain(wecom!.corpSecret);
    expect(logged).not.toContain("fake-wecom-token-");
  });

  it("delivers a reminder set in a private chat", async () => {
    const { t, callback } = await start();
    t.fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "schedule_task" } }] },
      { toolCalls: [{ name: "schedule_task", arguments: { name: "drink water", message: "Time to drink water!", when: { in: "1 second" } } }] },
      { text: "Sure." },
    );
    await wecom!.pushText(callback, "qianshiyi", "remind me in a second to drink water");
    await eventually(() => wecom!.api.sent.find((m) => m.text === "Time to drink water!"), "the reminder", 10_000);
    const reminders = wecom!.api.sent.filter((m) => m.text === "Time to drink water!");
    expect(reminders).toEqual([expect.objectContaining({ to: "qianshiyi", via: "user" })]);
    expect(t.fake.requests).toHaveLength(3);
  });

});
