/**
 * The whole gateway with the QQ channel against the fake QQ platform and the fake LLM: private and group messages
 * answered passively, long answers cut to 5 parts, redelivery, Markdown with its fallback, and reminders inside
 * and outside the reply window.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../../src/config.js";
import { startTestGateway, userTextsOf, type TestGateway } from "../../e2e/harness.js";
import { startFakeQq, type FakeQq } from "../../fakes/qq/index.js";
import { closeInOrder } from "../../helpers/close.js";
import { eventually } from "../../helpers/wait.js";

let gw: TestGateway | undefined;
let qq: FakeQq | undefined;
afterEach(() => closeInOrder([gw, qq]).then(() => (gw = qq = undefined)));

async function start(settings: Record<string, unknown> = {}, overrides: ConfigInput = {}): Promise<TestGateway> {
  qq = await startFakeQq();
  gw = await startTestGateway({
    ...overrides,
    access: { dmPolicy: "open", groupPolicy: "open", ...overrides.access },
    channels: { web: { enabled: false }, qq: { ...qq.settings(), ...settings } },
  });
  await qq.gateway.waitFor(() => qq!.gateway.identifies.length === 1, "Identify");
  return gw;
}

describe("QQ through the gateway", () => {
  it("answers a private message passively, with its msg_id and msg_seq 1", async () => {
    const t = await start();
    t.fake.enqueue({ text: "Hello from the model" });
    const event = qq!.c2c("你好");
    qq!.dispatch(event);
    const [reply] = await qq!.waitForSent(1);
    expect(reply).toMatchObject({ chat: event.chat, msg_type: 0, content: "Hello from the model", msg_id: event.data.id, msg_seq: 1 });
    expect(userTextsOf(t.fake.requests[0]!).at(-1)).toContain("你好");
    expect(qq!.gateway.identifies[0]!.intents & (1 << 25)).toBeTruthy();
  });

  it("answers a group @-mention and a guild channel @-mention", async () => {
    const t = await start();
    t.fake.enqueue({ text: "group answer" }, { text: "channel answer" });
    const group = qq!.groupAt("status?");
    qq!.dispatch(group);
    await qq!.waitForSent(1);
    const channel = qq!.channelAt("and here?");
    qq!.dispatch(channel);
    const sent = await qq!.waitForSent(2);
    expect(sent[0]).toMatchObject({ chat: group.chat, content: "group answer", msg_id: group.data.id, msg_seq: 1 });
    expect(sent[1]).toMatchObject({ chat: channel.chat, content: "channel answer", msg_id: channel.data.id });
    expect(userTextsOf(t.fake.requests[1]!).at(-1)).toContain("and here?");
    expect(userTextsOf(t.fake.requests[1]!).at(-1)).not.toContain("<@!bot-1>");
  });

  it.each([
    ["en", "…(cut: QQ takes only 5 replies to one message)"],
    ["zh-Hans", "…（已截断：QQ 对一条消息最多回复 5 次）"],
  ])("cuts a long answer into at most 5 parts of 5,000 characters, numbered 1 to 5, the last saying it was cut (i18n.default %s)", async (language, notice) => {
    const t = await start({}, { i18n: { default: language } });
    const long = Array.from({ length: 700 }, (_, i) => `line ${i} ${"很长的回答 ".repeat(8)}`).join("\n");
    t.fake.enqueue({ text: long });
    const event = qq!.c2c("write a book");
    qq!.dispatch(event);
    await eventually(() => qq!.api.sent.length === 5, "five parts");
    const parts = qq!.api.sent;
    expect(parts.map((p) => p.msg_seq)).toEqual([1, 2, 3, 4, 5]);
    expect(parts.every((p) => [...p.content].length <= 5000 && p.msg_id === event.data.id)).toBe(true);
    expect(parts[4]!.content.endsWith(notice)).toBe(true);
  });

  it("runs no second turn for an event delivered again, also after a resume", async () => {
    const t = await start();
    t.fake.enqueue({ text: "only once" }, { text: "sentinel answer" });
    const event = qq!.c2c("answer me once");
    qq!.dispatch(event);
    qq!.dispatch(event);
    await qq!.waitForSent(1);
    qq!.gateway.askReconnect();
    await qq!.gateway.waitFor(() => qq!.gateway.resumes.length === 1, "Resume");
    qq!.dispatch(event);
    qq!.dispatch(qq!.c2c("sentinel"));
    const sent = await qq!.waitForSent(2);
    expect(sent.map((m) => m.content)).toEqual(["only once", "sentinel answer"]);
    expect(t.fake.requests).toHaveLength(2);
  });

  it("sends Markdown with channels.qq.markdown, and plain text where the permission is missing", async () => {
    const t = await start({ markdown: true });
    t.fake.enqueue({ text: "**bold** answer" }, { text: "**second** answer" });
    qq!.dispatch(qq!.c2c("no permission yet"));
    const [plain] = await qq!.waitForSent(1);
    expect(plain).toMatchObject({ msg_type: 0, content: "**bold** answer", msg_seq: 1 });
    qq!.api.markdownAllowed = true;
    qq!.dispatch(qq!.c2c("now with it"));
    const sent = await qq!.waitForSent(2);
    expect(sent[1]).toMatchObject({ msg_type: 2, markdown: "**second** answer", msg_seq: 1 });
  });

  it("delivers a reminder inside the reply window, answering the chat's last message", async () => {
    const t = await start();
    t.fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "schedule_task" } }] },
      { toolCalls: [{ name: "schedule_task", arguments: { name: "tea", message: "Tea time!", when: { in: "1 second" } } }] },
      { text: "Sure." },
    );
    const event = qq!.c2c("remind me in a second: tea");
    qq!.dispatch(event);
    const reminder = await eventually(() => qq!.api.sent.find((m) => m.content === "Tea time!"), "the reminder", 10_000);
    expect(reminder).toMatchObject({ chat: event.chat, msg_id: event.data.id, msg_seq: 2 });
    const [, scheduled] = t.fake.lastToolResults();
    expect(scheduled!.content).not.toHaveProperty("delivery_warning");
  });

  it("warns when a reminder is set beyond the window, and logs the one that cannot be delivered", async () => {
    const t = await start();
    t.fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "schedule_task" } }] },
      { toolCalls: [{ name: "schedule_task", arguments: { name: "later", message: "Much later!", when: { in: "2 hours" } } }] },
      { text: "Noted, but QQ may not let me." },
      { toolCalls: [{ name: "schedule_task", arguments: { name: "soon", message: "Too late!", when: { in: "1 second" } } }] },
      { text: "Ok." },
    );
    const event = qq!.c2c("remind me in two hours");
    qq!.dispatch(event);
    await eventually(() => qq!.api.sent.some((m) => m.content.startsWith("Noted")), "the answer");
    const [, later] = t.fake.lastToolResults();
    expect((later!.content as { delivery_warning?: string }).delivery_warning).toContain("within 60 minutes");
    // A message whose own time says it was written 61 minutes ago: the reminder it sets fires outside the window.
    const second = qq!.c2c("and one in a second");
    second.data.timestamp = new Date(Date.now() - 61 * 60_000).toISOString();
    qq!.dispatch(second);
    await eventually(
      () => t.logs.find((l) => String(l.msg).includes("outside the reply window") && String(JSON.stringify(l)).includes("last message came")),
      "the missed reminder logged with its reason",
      15_000,
    );
    expect(qq!.api.sent.some((m) => m.content === "Too late!")).toBe(false);
  });
});
