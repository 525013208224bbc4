/** The gateway's own words in each person's language, through the whole gateway and the fake platforms. */
import { turnNotesOf } from "../fakes/openai-server.js";
import { afterEach, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "./harness.js";
import { startFakeTelegram, type FakeTelegram, type SentRecord } from "../fakes/telegram/server.js";
import { directChat, messageOf, messageUpdate, text, type TgUser } from "../fakes/telegram/updates.js";
import { startFakeDiscord, until, user, type FakeDiscord } from "../fakes/discord/index.js";
import { closeInOrder } from "../helpers/close.js";

let t: TestGateway | undefined;
let tg: FakeTelegram | undefined;
let discord: FakeDiscord | undefined;
afterEach(() => closeInOrder([t, tg, discord]).then(() => (t = tg = discord = undefined)));

const li: TgUser = { id: 2001, is_bot: false, first_name: "Li", username: "li", language_code: "zh-hans" };

async function startTelegram(): Promise<FakeTelegram> {
  tg = await startFakeTelegram();
  t = await startTestGateway({
    channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1, streaming: "off", ackReaction: null } },
    access: { owners: [`telegram:${li.id}`] },
    agent: { timezone: "Asia/Shanghai" },
  });
  return tg;
}

/** Sends `body` as Li and returns the bot's reply to it. */
async function say(fake: FakeTelegram, body: string, from: TgUser = li): Promise<string> {
  const update = text(directChat(from), body, { from });
  fake.addUpdate(update);
  const reply: SentRecord = await fake.waitFor(() => fake.sent.find((s) => s.replyTo === messageOf(update).message_id), 10_000);
  return reply.text ?? "";
}

/** The system messages of the latest model call, as sent. */
const lastNotes = (): string => turnNotesOf(t!.fake.requests.at(-1)!);

describe("languages", () => {
  it("a Chinese Telegram user gets Chinese help, reminders and apologies; /language switches to English and back", async () => {
    const fake = await startTelegram();
    const help = await say(fake, "/help");
    expect(help).toContain("Switchboard 的命令：");
    expect(help).toContain("/help - 显示本帮助");
    expect(help).toContain("/remind &lt;when&gt; &lt;what&gt; - 设置提醒");
    expect(help).toContain("其他任何内容都会作为消息发给助手。");

    const reminder = await say(fake, "/remind in 10m stretch");
    expect(reminder).toMatch(/^提醒“stretch”（\w+）已设在 \d{4}年\d{1,2}月\d{1,2}日星期.\s*\d{1,2}:\d{2} \(Asia\/Shanghai\)，10 分钟后。\n取消请发送 \/cancel \w+$/);
    expect(await say(fake, "/tasks")).toMatch(/^你的任务（1 个）：/);

    t!.fake.enqueue({ status: 400, body: { error: { message: "bad request" } } });
    expect(await say(fake, "hello")).toMatch(/^抱歉，现在无法从语言模型得到回答（错误编号 \w+）。/);

    expect(await say(fake, "/language en")).toBe("Done: I answer you in English from now on.");
    expect(await say(fake, "/help")).toContain("Switchboard commands:\n/help - show this help");
    expect(await say(fake, "/language klingon")).toBe("I do not speak &quot;klingon&quot; yet: choose en (English) or zh (简体中文).");
    expect(await say(fake, "/language zh")).toBe("好的：从现在起我用简体中文回答你。");
    expect(await say(fake, "/language")).toMatch(/^我用简体中文回答你/);
  });

  it("tells a sender about a file too large to read in their language: Telegram's, else their /language", async () => {
    const fake = await startTelegram();
    const sendLarge = async (name: string): Promise<string> => {
      const file = fake.addFile(Buffer.from("x"), { size: 30 * 2 ** 20 });
      t!.fake.enqueue({ text: "noted" });
      const update = messageUpdate(directChat(li), { document: { ...file, file_name: name }, caption: "keep this" }, li);
      fake.addUpdate(update);
      const notice = await fake.waitFor(() => fake.sent.find((s) => s.replyTo === messageOf(update).message_id && s.text?.includes(name) === true), 10_000);
      return notice.text ?? "";
    };
    expect(await sendLarge("backup.zip")).toBe("我打不开 backup.zip (30.0 MB)：机器人只能从 Telegram 下载不超过 20.0 MB 的文件。请发送更小的文件，或发送文件的链接。");
    expect(await say(fake, "/language en")).toBe("Done: I answer you in English from now on.");
    expect(await sendLarge("movie.mkv")).toBe(
      "I could not open movie.mkv (30.0 MB): bots can only download files up to 20.0 MB from Telegram. Send a smaller file, or a link to it.",
    );
  });

  it("tells the model a Chinese sender's language in the message's notes, and nothing for English", async () => {
    const fake = await startTelegram();
    t!.fake.enqueue({ text: "你好！" });
    expect(await say(fake, "你好")).toBe("你好！");
    expect(lastNotes()).toContain("Sender's language: Simplified Chinese (zh-Hans); answer in it unless they write in another");

    await say(fake, "/language en");
    t!.fake.enqueue({ text: "Hi!" });
    await say(fake, "hi");
    expect(lastNotes()).not.toContain("Sender's language");
  });

  it("an English Discord user gets English, a Chinese one Chinese, from their interactions' locale", async () => {
    discord = await startFakeDiscord();
    const owner = user("owner");
    t = await startTestGateway({
      channels: { discord: { token: discord.token, apiUrl: discord.apiUrl, streaming: "off", ackReaction: null } },
      access: { owners: [`discord:${owner.id}`], groups: [{ guild: `discord:${discord.world.guild.id}` }] },
    });
    const place = { channelId: discord.world.general.id, guildId: discord.world.guild.id };
    const english = discord.slashCommand("help", undefined, owner, { ...place, locale: "en-US" });
    await until(() => english.original !== undefined, "the English help");
    expect(english.original).toMatch(/^Switchboard commands:\n\/help - show this help/);

    const chinese = discord.slashCommand("remind", "in 10m stretch", user("wang"), { ...place, locale: "zh-CN" });
    await until(() => chinese.original !== undefined, "the Chinese confirmation");
    expect(chinese.original).toMatch(/^提醒“stretch”/);
  });
});
