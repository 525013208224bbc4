/** Inline buttons and the command menu, through the whole gateway against the fake Bot API. */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../../src/config.js";
import { startTestGateway, userTextsOf, type TestGateway } from "../../e2e/harness.js";
import { startFakeTelegram, type FakeTelegram, type SentRecord } from "../../fakes/telegram/server.js";
import { alice, bob, directChat, groupChat, messageOf, text, type TgUser } from "../../fakes/telegram/updates.js";
import { eventually } from "./harness.js";
import { closeInOrder } from "../../helpers/close.js";
import { schedulerFeature } from "../../../src/features/scheduler.js";
import zhHans from "../../../src/infra/i18n/zh-Hans.json" with { type: "json" };

let t: TestGateway | undefined;
let tg: FakeTelegram | undefined;
afterEach(() => closeInOrder([t, tg]).then(() => (t = tg = undefined)));

const carol: TgUser = { id: 1003, is_bot: false, first_name: "Carol", username: "carol" };

/** alice owns the bot; bob and carol are strangers unless a test lets them in. */
async function start(extra: ConfigInput = {}): Promise<{ t: TestGateway; tg: FakeTelegram }> {
  tg = await startFakeTelegram();
  t = await startTestGateway({
    ...extra,
    channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1, streaming: "off", ackReaction: null } },
    access: { owners: [`telegram:${alice.id}`], groups: [{ chat: `telegram:${groupChat.id}` }], ...extra.access },
  });
  return { t, tg };
}

const replyTo = (fake: FakeTelegram, update: Record<string, unknown>): Promise<SentRecord> =>
  fake.waitFor(() => fake.sent.find((s) => s.replyTo === messageOf(update).message_id), 10_000);

/** The bot's message to `chatId` whose text matches, once it is there. */
const sentTo = (fake: FakeTelegram, chatId: number, pattern: RegExp): Promise<SentRecord> =>
  fake.waitFor(() => fake.sent.find((s) => s.chatId === String(chatId) && pattern.test(s.text ?? "")), 10_000);

const answered = (fake: FakeTelegram, queryId: string) => fake.waitFor(() => fake.callbackAnswers.find((a) => a.queryId === queryId));

describe("Telegram buttons", () => {
  it("asks the owner to approve a pairing request; only the owner's Approve opens the chat, once", async () => {
    const { t, tg } = await start();
    const hello = text(directChat(bob), "hello?", { from: bob });
    tg.addUpdate(hello);
    const prompt = await replyTo(tg, hello);
    const code = /pairing code is (\w{8})/.exec(prompt.text ?? "")![1]!;

    const notice = await sentTo(tg, alice.id, /Bob \(telegram:1002\) asks to chat with me\. Pairing code/);
    expect(notice.text).toContain(code);
    expect(notice.keyboard?.flat().map((b) => b.text)).toEqual(["Approve", "Deny"]);
    expect(notice.keyboard?.flat().every((b) => Buffer.byteLength(b.callback_data) <= 64)).toBe(true);

    // Bob cannot approve himself, even holding the button's data: refused with a toast, nothing else happens.
    const forged = tg.press(String(alice.id), notice.messageId, "Approve", bob);
    expect(await answered(tg, forged)).toEqual({ queryId: forged, text: "This button is not for you." });
    // The notice comes in the presser's app language.
    const forgedInChinese = tg.press(String(alice.id), notice.messageId, "Approve", { ...bob, language_code: "zh-hans" });
    expect(await answered(tg, forgedInChinese)).toEqual({ queryId: forgedInChinese, text: zhHans.buttons.notYours });
    expect(tg.visible(String(alice.id)).find((m) => m.messageId === notice.messageId)?.keyboard).toBeDefined();
    const still = text(directChat(bob), "let me in", { from: bob });
    tg.addUpdate(still);
    expect((await replyTo(tg, still)).text).toContain(code);

    const press = tg.press(String(alice.id), notice.messageId, "Approve", alice);
    expect(await answered(tg, press)).toEqual({ queryId: press });
    const approved = await sentTo(tg, alice.id, /^Approved Bob \(telegram:1002\)/);
    expect(approved.replyTo).toBe(notice.messageId);
    await tg.waitFor(() => tg.sent.find((m) => m.messageId === notice.messageId && m.keyboard === undefined));

    t.fake.enqueue({ text: "Hi Bob!" });
    const after = text(directChat(bob), "am I in?", { from: bob });
    tg.addUpdate(after);
    expect((await replyTo(tg, after)).text).toBe("Hi Bob!");

    // A second press of the used button (a client still showing it) does nothing but say so.
    const again = tg.press(String(alice.id), notice.messageId, "Approve", alice);
    expect(await answered(tg, again)).toEqual({ queryId: again, text: "Already done." });
    expect(tg.sent.filter((m) => /^Approved/.test(m.text ?? ""))).toHaveLength(1);
  });

  it("Deny drops the request: the requester stays out", async () => {
    const { tg } = await start();
    const hello = text(directChat(carol), "hi", { from: carol });
    tg.addUpdate(hello);
    const code = /pairing code is (\w{8})/.exec((await replyTo(tg, hello)).text ?? "")![1]!;
    const notice = await sentTo(tg, alice.id, /Carol \(telegram:1003\) asks to chat with me/);
    await answered(tg, tg.press(String(alice.id), notice.messageId, "Deny", alice));
    await sentTo(tg, alice.id, /^Denied the pairing request of Carol/);

    const again = text(directChat(carol), "hello again", { from: carol });
    tg.addUpdate(again);
    const prompt = (await replyTo(tg, again)).text ?? "";
    expect(prompt).toMatch(/pairing code is \w{8}/);
    expect(prompt).not.toContain(code);
  });

  it("/tasks has a Cancel button per task that only the asker may press", async () => {
    const { t, tg } = await start({ access: { owners: [`telegram:${alice.id}`], allowFrom: [`telegram:${bob.id}`], groups: [{ chat: `telegram:${groupChat.id}` }] } });
    const remind = text(groupChat, "/remind in 10m stretch", { from: bob });
    tg.addUpdate(remind);
    await replyTo(tg, remind);
    const tasks = text(groupChat, "/tasks", { from: bob });
    tg.addUpdate(tasks);
    const list = await replyTo(tg, tasks);
    expect(list.keyboard?.flat().map((b) => b.text)).toEqual(['Cancel "stretch"']);
    const scheduler = t.gateway.feature(schedulerFeature)!.scheduler!;
    const live = () => scheduler.list({ kind: "operator" }, { everyone: true });
    expect(await live()).toHaveLength(1);

    const stranger = tg.press(String(groupChat.id), list.messageId, 'Cancel "stretch"', carol);
    expect(await answered(tg, stranger)).toMatchObject({ text: "This button is not for you." });
    expect(await live()).toHaveLength(1);

    await answered(tg, tg.press(String(groupChat.id), list.messageId, 'Cancel "stretch"', bob));
    const done = await sentTo(tg, groupChat.id, /^Cancelled &quot;stretch&quot;/);
    expect(done.replyTo).toBe(list.messageId);
    expect(await live()).toHaveLength(0);
  });

  it("a turn stopped at the step limit offers Continue, which runs a follow-up turn as the presser", async () => {
    const { t, tg } = await start({ llm: { maxSteps: 1 } });
    t.fake.enqueue({ toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "read_file" } }] });
    const ask = text(directChat(alice), "do a long job");
    tg.addUpdate(ask);
    const stopped = await replyTo(tg, ask);
    expect(stopped.text).toMatch(/I stopped after 1 steps/);
    expect(stopped.keyboard?.flat().map((b) => b.text)).toEqual(["Continue"]);

    t.fake.enqueue({ text: "All done now." });
    await answered(tg, tg.press(String(alice.id), stopped.messageId, "Continue", alice));
    const next = await sentTo(tg, alice.id, /^All done now\.$/);
    expect(next.replyTo).toBe(stopped.messageId);
    expect(t.fake.requests).toHaveLength(2);
    expect(userTextsOf(t.fake.requests[1]!).at(-1)).toContain("continue");
  });

  it("sets the command menu per scope: private chats, groups, and the owners' own chats with their commands", async () => {
    const { tg } = await start();
    await tg.waitFor(() => tg.commandMenus.get(`chat:${alice.id}/zh`));
    const everyone = ["help", "new", "status", "stop", "language", "remind", "tasks", "voice", "usage"];
    const names = (scope: string) => tg.commandMenus.get(scope)?.map((c) => c.command);
    expect(names("all_private_chats")).toEqual(everyone);
    expect(names("all_group_chats")).toEqual(everyone);
    expect(names(`chat:${alice.id}`)).toEqual([...everyone, "pair"]);
    // Presses are asked for explicitly: a list left by an earlier setup of the token cannot leave them out.
    expect(tg.callsOf("getUpdates").at(-1)?.params.allowed_updates).toEqual(["message", "edited_message", "callback_query"]);
  });

  it("sets a menu per language: Chinese for Chinese clients (language_code zh), the default's for everyone else", async () => {
    const { tg } = await start();
    await tg.waitFor(() => tg.commandMenus.get(`chat:${alice.id}/zh`));
    const described = (scope: string, command: string) => tg.commandMenus.get(scope)?.find((c) => c.command === command)?.description;
    for (const scope of ["all_private_chats", "all_group_chats", `chat:${alice.id}`]) {
      expect(described(scope, "help")).toBe("Show this help");
      expect(described(`${scope}/en`, "help")).toBe("Show this help");
      expect(described(`${scope}/zh`, "help")).toBe(zhHans.commands.help.summary);
      expect(tg.commandMenus.get(`${scope}/zh`)?.map((c) => c.command)).toEqual(tg.commandMenus.get(scope)?.map((c) => c.command));
    }
    expect(described(`chat:${alice.id}/zh`, "pair")).toBe(zhHans.commands.pair.summary);
    expect(described("all_private_chats/zh", "remind")).toBe(zhHans.commands.remind.summary);
    // Only two-letter codes and only the catalog languages.
    expect(new Set([...tg.commandMenus.keys()].filter((key) => key.includes("/")).map((key) => key.split("/")[1]))).toEqual(new Set(["en", "zh"]));
  });

  it("with Chinese as the default, the list without a language is Chinese and English clients get theirs", async () => {
    const { tg } = await start({ i18n: { default: "zh-Hans" } });
    await tg.waitFor(() => tg.commandMenus.get(`chat:${alice.id}/en`));
    const described = (scope: string) => tg.commandMenus.get(scope)?.find((c) => c.command === "status")?.description;
    expect(described("all_private_chats")).toBe(zhHans.commands.status.summary);
    expect(described("all_private_chats/zh")).toBe(zhHans.commands.status.summary);
    expect(described("all_private_chats/en")).toBe("Show the model, this session's size and whether a turn is running");
  });

  it("a menu the platform refuses is logged and the bot still answers", async () => {
    tg = await startFakeTelegram();
    tg.fail("setMyCommands", { kind: "error", code: 400, description: "Bad Request: BOT_COMMAND_INVALID" });
    t = await startTestGateway({ channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1, streaming: "off" } }, access: { dmPolicy: "open" } });
    const gateway = t;
    await eventually(() => gateway.logs.find((r) => /could not register the command menu/.test(r.msg)), "the menu failure in the log");
    const status = text(directChat(), "/status");
    tg.addUpdate(status);
    expect((await replyTo(tg, status)).text).toMatch(/^Session: /);
  });
});
