/**
 * The answers of the features' commands and notices in each person's language, through the whole gateway and the
 * fake Telegram: Li's client says zh-hans, Ann's en.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../src/config.js";
import { startTestGateway, type TestGateway } from "./harness.js";
import { startFakeTelegram, type FakeTelegram, type SentRecord } from "../fakes/telegram/server.js";
import { directChat, messageOf, text, type TgUser } from "../fakes/telegram/updates.js";
import { closeInOrder } from "../helpers/close.js";

let t: TestGateway | undefined;
let tg: FakeTelegram | undefined;
afterEach(() => closeInOrder([t, tg]).then(() => (t = tg = undefined)));

const li: TgUser = { id: 2001, is_bot: false, first_name: "Li", username: "li", language_code: "zh-hans" };
const ann: TgUser = { id: 2002, is_bot: false, first_name: "Ann", username: "ann", language_code: "en" };

async function start(overrides: ConfigInput = {}): Promise<FakeTelegram> {
  tg = await startFakeTelegram();
  t = await startTestGateway({
    channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1, streaming: "off", ackReaction: null } },
    access: { owners: [`telegram:${li.id}`], allowFrom: [`telegram:${ann.id}`] },
    agent: { timezone: "Asia/Shanghai" },
    ...overrides,
  });
  return tg;
}

/** Sends `body` as `from` in their direct chat and returns the bot's reply to it. */
async function say(fake: FakeTelegram, from: TgUser, body: string): Promise<string> {
  const update = text(directChat(from), body, { from });
  fake.addUpdate(update);
  const reply: SentRecord = await fake.waitFor(() => fake.sent.find((s) => s.replyTo === messageOf(update).message_id), 10_000);
  return reply.text ?? "";
}

describe("the features' answers in each person's language", () => {
  it("/usage, /voice, /memory, /forget, /agent and the approvals' commands", async () => {
    const fake = await start();
    expect(await say(fake, li, "/usage")).toMatch(/^你的模型用量：\n今天：输入 0 \+ 输出 0 个 token，费用 0\.00，模型调用 0 次\n本月：/);
    expect(await say(fake, ann, "/usage")).toMatch(/^Your model use:\nToday: 0 input \+ 0 output tokens, cost 0\.00, 0 model calls\nThis month:/);
    expect(await say(fake, ann, "/usage all")).toBe("Only owners can see everyone's use. /usage shows your own.");
    expect(await say(fake, li, "/usage all")).toMatch(/^所有人的模型用量：/);

    expect(await say(fake, li, "/voice on")).toBe("好的：这里的每条回复也会以语音消息发送（尚未设置语音合成服务，所以暂时不会朗读）。");
    expect(await say(fake, li, "/voice")).toMatch(/^语音回复：这里的每条回复也会以语音消息发送（尚未设置语音合成服务，所以暂时不会朗读）；你收到的语音回复/);
    expect(await say(fake, li, "/voice loud")).toMatch(/^未知的选项“loud”/);
    expect(await say(fake, ann, "/voice on")).toBe("Done: every reply here comes as a voice message too (no speech provider is set up, so nothing is spoken yet).");
    expect(await say(fake, ann, "/voice text off")).toMatch(/^Done: your spoken replies come without their text/);

    expect(await say(fake, li, "/memory")).toBe(
      "我记得的关于你的事（0 条）：\n（无）\n\n你的资料是空的。\n\n用 /forget &lt;id&gt; 删除一条，用 /forget all 删除关于你的全部内容。",
    );
    expect(await say(fake, ann, "/memory")).toBe(
      "What I remember about you (0):\n(nothing)\n\nYour profile is empty.\n\nForget one with /forget &lt;id&gt;, everything about you with /forget all.",
    );
    expect(await say(fake, li, "/forget abcdefgh")).toBe("这里没有属于你的记忆 abcdefgh。/memory 会列出它们和各自的 id。");
    expect(await say(fake, ann, "/forget abcdefgh")).toBe("There is no memory abcdefgh of yours here. /memory lists them with their ids.");
    expect(await say(fake, li, "/forget all")).toBe("好的：我忘掉了 0 条记忆。本次对话的历史会保留到 /new 为止。");

    expect(await say(fake, li, "/approve")).toBe("用法：/approve &lt;id&gt; [always]");
    expect(await say(fake, li, "/deny nosuch")).toBe("没有批准请求 nosuch。");
    expect(await say(fake, ann, "/deny nosuch")).toBe("There is no approval request nosuch.");
  });

  it("pairing: the owner's notice with its buttons and /pair, in the owner's chosen language", async () => {
    const fake = await start();
    expect(await say(fake, li, "/language zh")).toBe("好的：从现在起我用简体中文回答你。");
    const wang: TgUser = { id: 2003, is_bot: false, first_name: "Wang", username: "wang" };
    const asked = await say(fake, wang, "hi");
    const code = /pairing code is (\w{8})/.exec(asked)![1]!;
    const notice = await fake.waitFor(() => fake.sent.find((s) => s.chatId === String(li.id) && /请求和我聊天/.test(s.text ?? "")), 10_000);
    expect(notice.text).toMatch(new RegExp(`^Wang（telegram:${wang.id}）请求和我聊天。配对码 ${code}，还有 \\d+ 分钟有效。$`));
    expect(notice.keyboard?.map((row) => row.map((b) => b.text))).toEqual([["批准", "拒绝"]]);
    expect(await say(fake, li, "/pair")).toMatch(new RegExp(`^等待批准：\ntelegram ${code}  Wang（telegram:${wang.id}），\\d+ 分钟后过期$`));
    expect(await say(fake, li, "/pair 12345678")).toBe("“12345678”不是配对码：配对码有 8 个字符，由字母和数字组成，不含 0、O、1 和 I。");
    expect(await say(fake, li, `/pair ${code}`)).toBe(`已批准 Wang（telegram:${wang.id}）。现在他们可以和我聊天了。`);
    expect(await say(fake, ann, "/pair")).toBe("Only an owner can approve pairing codes.");
  });

  it("/agent", async () => {
    const fake = await start({
      agents: { default: { name: "Homebot" }, support: { name: "Helpdesk" } },
      routing: [
        { match: { chat: `telegram:${li.id}` }, agent: "default", allowSwitch: true },
        { match: { chat: `telegram:${ann.id}` }, agent: "default" },
      ],
    });
    expect(await say(fake, li, "/agent")).toBe(
      "本聊天由 Homebot (default) 回答。\n你可以把本聊天切换到：\n• default (Homebot)\n• support (Helpdesk)\n用 /agent &lt;id&gt; 切换。",
    );
    expect(await say(fake, li, "/agent nobody")).toBe("这里没有可以切换到的智能体“nobody”。请从以下选择：default, support。");
    expect(await say(fake, li, "/agent support")).toBe("本聊天现在由 Helpdesk (support) 回答。它和你的对话是独立的；用 /agent 可以切换回去。");
    expect(await say(fake, ann, "/agent")).toBe("This chat is answered by Homebot (default). The gateway's routing sets it; it cannot be switched here.");
    expect(await say(fake, ann, "/agent support")).toBe("This chat's agent is set by the gateway's routing; it cannot be switched here.");
  });

  it("reminders: a repeating one's confirmation, /tasks and the scheduler's refusals", async () => {
    const fake = await start();
    const chinese = await say(fake, li, "/remind every weekday 9:00 站会");
    expect(chinese).toMatch(/^提醒“站会”（(\w{8})）的时间是 每个工作日 9:00；第一次在 \d{4}年\d{1,2}月\d{1,2}日星期.\s*09:00 \(Asia\/Shanghai\)，\d+ (天|小时|分钟)/);
    expect(await say(fake, li, "/remind 每周一早上10点 周会")).toMatch(/^提醒“周会”（\w{8}）的时间是 每周一 10:00；/);
    expect(await say(fake, li, "/remind every 2 hours 喝水")).toMatch(/^提醒“喝水”（\w{8}）的时间是 每 2 小时；/);
    expect(await say(fake, li, "/tasks")).toMatch(/\n\w{8} {2}提醒“站会”：下次 .+，每个工作日 9:00\n/);
    const english = await say(fake, ann, "/remind every weekday 9:00 standup");
    expect(english).toMatch(/^Reminder &quot;standup&quot; \(\w{8}\) runs every weekday at 9:00; the first run is \w+day \d{4}-\d\d-\d\d 09:00 \(Asia\/Shanghai, GMT\+08:00\), in \d+ (d|h|min)/);
    expect(await say(fake, ann, "/remind every monday at 10am review")).toMatch(/^Reminder &quot;review&quot; \(\w{8}\) runs every Monday at 10:00;/);

    expect(await say(fake, li, "/cancel nosuch1")).toBe("你没有 id 为“nosuch1”的任务；/tasks 会列出你的任务。");
    expect(await say(fake, ann, "/cancel nosuch1")).toBe("No task &quot;nosuch1&quot; of yours exists; /tasks shows your tasks.");
    expect(await say(fake, li, "/timezone Mars/Base")).toBe("“Mars/Base”不是 IANA 时区；请写成 Europe/Berlin 或 Asia/Shanghai 这样的形式。");
    expect(await say(fake, li, "/remind every 10 seconds 刷屏")).toBe("两次运行只相隔 10 秒；允许的最短间隔是 1 分钟。");
    expect(await say(fake, ann, "/remind every 10 seconds spam")).toBe("Runs would be 10 s apart; the shortest interval allowed is 1 min.");
  });

  it("a spent budget's refusal", async () => {
    // Owners are exempt from budgets by default: here nobody is one.
    const fake = await start({ budgets: { perUser: { daily: { tokens: 10 } } }, access: { allowFrom: [`telegram:${li.id}`, `telegram:${ann.id}`] } });
    // The first call is let through (the budget was not spent before it); it spends the day's budget.
    t!.fake.enqueue({ text: "你好！" }, { text: "Hi!" });
    expect(await say(fake, li, "你好")).toMatch(/^你好！/);
    expect(await say(fake, ann, "hi")).toMatch(/^Hi!/);
    expect(await say(fake, li, "你好")).toMatch(/^你的每日预算（10 个 token）已用完（已用 [\d,]+ 个 token），在 \d{4}年\d{1,2}月\d{1,2}日星期.\s*00:00 \(Asia\/Shanghai\) 重置之前我无法回答。$/);
    expect(await say(fake, ann, "hello")).toMatch(
      /^You have reached your daily budget of 10 tokens \(used [\d,]+ tokens\), so I cannot answer until it resets at \w+day \d{4}-\d\d-\d\d 00:00 \(Asia\/Shanghai, GMT\+08:00\)\.$/,
    );
    expect(t!.fake.requests).toHaveLength(2);
  });

  it("an approval request and its buttons", async () => {
    const fake = await start({ approvals: { mode: "always", tools: ["write_file"] }, sessions: { shutdownGraceMs: 100 } });
    const write = { name: "write_file", arguments: { path: "note.txt", content: "hello" } };
    t!.fake.enqueue({ toolCalls: [write] });
    fake.addUpdate(text(directChat(li), "写个笔记", { from: li }));
    const chinese = await fake.waitFor(() => fake.sent.find((s) => /^运行 write_file 之前/.test(s.text ?? "")), 10_000);
    expect(chinese.text).toMatch(/^运行 write_file 之前需要你的批准：\n\nwrite_file\npath: note\.txt\ncontent: hello\n/);
    expect(chinese.text).toMatch(/\n\n询问原因：approvals\.mode 设为 always。只有 Li 或主人可以回答；5 分钟内没有回答将视为拒绝。（请求 \w+）$/);
    expect(chinese.keyboard?.map((row) => row.map((b) => b.text))).toEqual([["批准一次", "拒绝"], ["在本聊天中始终允许此工具"]]);
    const id = /（请求 (\w+)）$/.exec(chinese.text ?? "")![1]!;
    t!.fake.enqueue({ text: "写好了。" });
    expect(await say(fake, li, `/approve ${id}`)).toBe(`已批准：write_file（请求 ${id}）。`);
    await fake.waitFor(() => fake.sent.find((s) => s.text === "写好了。"), 10_000);
    expect(await say(fake, li, `/deny ${id}`)).toMatch(new RegExp(`^请求 ${id} 已经有了回答：已批准（telegram:${li.id}）。$`));

    t!.fake.enqueue({ toolCalls: [{ ...write, arguments: { path: "ann.txt", content: "hi" } }] });
    fake.addUpdate(text(directChat(ann), "write a note", { from: ann }));
    const english = await fake.waitFor(() => fake.sent.find((s) => /^Approval needed before I run write_file/.test(s.text ?? "")), 10_000);
    expect(english.text).toMatch(/\n\nAsked because approvals\.mode is always\. Only Ann or an owner may answer; unanswered after 5 min it is denied\. \(request \w+\)$/);
    expect(english.keyboard?.map((row) => row.map((b) => b.text))).toEqual([["Approve once", "Deny"], ["Always for this tool in this chat"]]);
  });
});
