/** Buttons (message components) and slash commands over interactions, through the whole gateway and the fake Discord. */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../../src/config.js";
import { startTestGateway, type TestGateway } from "../../e2e/harness.js";
import { messagePayload, startFakeDiscord, until, user, type FakeDiscord, type PostedMessage } from "../../fakes/discord/index.js";
import { closeInOrder } from "../../helpers/close.js";
import { buttonRows, postedMatching } from "./helpers.js";
import { schedulerFeature } from "../../../src/features/scheduler.js";
import zhHans from "../../../src/infra/i18n/zh-Hans.json" with { type: "json" };

let fake: FakeDiscord;
let t: TestGateway | undefined;
afterEach(() => closeInOrder([t, fake]).then(() => (t = undefined)));

const owner = user("owner");
const stranger = user("stranger");
const mallory = user("mallory");

/** `groups` gets the fake's server id (each test has its own fake). */
async function start(extra: ConfigInput = {}, groups = (guildId: string) => [{ guild: `discord:${guildId}` }]): Promise<TestGateway> {
  fake = await startFakeDiscord();
  t = await startTestGateway({
    ...extra,
    channels: { discord: { token: fake.token, apiUrl: fake.apiUrl, streaming: "off", ackReaction: null } },
    access: { owners: [`discord:${owner.id}`], groups: groups(fake.world.guild.id), ...extra.access },
  });
  return t;
}

const posted = (pattern: RegExp): Promise<PostedMessage> => postedMatching(fake, pattern);
const labels = (message: PostedMessage) => buttonRows(message).flat();

describe("Discord buttons and slash commands", () => {
  it("the owner's DM about a pairing request: a stranger's press is refused, the owner's Approve opens the chat once", async () => {
    const gw = await start();
    const strangerDm = fake.dmChannelWith(stranger);
    fake.dispatch("MESSAGE_CREATE", messagePayload({ channelId: strangerDm.id, author: stranger, content: "hi there" }));
    const prompt = await posted(/pairing code is \w{8}/);
    expect(prompt.channelId).toBe(strangerDm.id);

    const notice = await posted(/asks to chat with me\. Pairing code/);
    const ownerDm = fake.dmChannelWith(owner);
    expect(notice.channelId).toBe(ownerDm.id);
    expect(labels(notice)).toEqual(["Approve", "Deny"]);

    const forged = fake.pressButton(notice, "Approve", mallory);
    await until(() => forged.responseType !== undefined, "the refusal");
    expect(forged).toMatchObject({ responseType: 4, responseData: { content: "This button is not for you.", flags: 64 } });
    expect(labels(fake.messages.find((m) => m.id === notice.id)!)).toEqual(["Approve", "Deny"]);

    const press = fake.pressButton(notice, "Approve", owner);
    await until(() => press.responseType !== undefined, "the answer to the press");
    expect(press).toMatchObject({ responseType: 7, responseData: { components: [] } });
    const approved = await posted(/^Approved stranger/);
    expect(approved.channelId).toBe(ownerDm.id);

    gw.fake.enqueue({ text: "Welcome!" });
    fake.dispatch("MESSAGE_CREATE", messagePayload({ channelId: strangerDm.id, author: stranger, content: "and now?" }));
    await posted(/^Welcome!$/);

    const again = fake.pressButton(notice, "Approve", owner);
    await until(() => again.responseType !== undefined, "the answer to the second press");
    expect(again.responseType).toBe(7);
    expect(fake.messages.filter((m) => /^Approved/.test(String(m.payload.content)))).toHaveLength(1);
  });

  it("Deny leaves the requester out", async () => {
    await start();
    const strangerDm = fake.dmChannelWith(stranger);
    fake.dispatch("MESSAGE_CREATE", messagePayload({ channelId: strangerDm.id, author: stranger, content: "hi" }));
    const notice = await posted(/asks to chat with me/);
    fake.pressButton(notice, "Deny", owner);
    await posted(/^Denied the pairing request of stranger/);
    fake.dispatch("MESSAGE_CREATE", messagePayload({ channelId: strangerDm.id, author: stranger, content: "please?" }));
    await until(() => fake.messages.filter((m) => /pairing code is/.test(String(m.payload.content))).length === 2, "a new pairing code");
  });

  it("/remind and /tasks as slash commands: answered through the interaction, with the Cancel button", async () => {
    const gw = await start();
    const place = { channelId: fake.world.general.id, guildId: fake.world.guild.id };
    const remind = fake.slashCommand("remind", "in 10m stretch", stranger, place);
    await until(() => remind.original !== undefined && remind.original.startsWith("Reminder"), "the reminder's confirmation");
    expect(remind.responseType).toBe(5);

    const tasks = fake.slashCommand("tasks", undefined, stranger, place);
    await until(() => tasks.original?.startsWith("Your tasks (1)") === true, "the task list");
    const scheduler = gw.gateway.feature(schedulerFeature)!.scheduler!;
    const live = () => scheduler.list({ kind: "operator" }, { everyone: true });
    expect(await live()).toHaveLength(1);
    const rows = tasks.originalComponents as Array<{ components: Array<{ label: string; style: number }> }>;
    expect(rows.flatMap((row) => row.components)).toMatchObject([{ label: 'Cancel "stretch"', style: 4 }]);
  });

  it("Cancel under /tasks typed in a channel cancels only for the asker", async () => {
    const gw = await start({}, (guildId) => [{ guild: `discord:${guildId}`, requireMention: false }]);
    const channel = { channelId: fake.world.general.id, guildId: fake.world.guild.id };
    fake.dispatch("MESSAGE_CREATE", messagePayload({ ...channel, author: stranger, content: "/remind in 10m stretch" }));
    await posted(/^Reminder "stretch"/);
    fake.dispatch("MESSAGE_CREATE", messagePayload({ ...channel, author: stranger, content: "/tasks" }));
    const list = await posted(/^Your tasks \(1\)/);
    expect(labels(list)).toEqual(['Cancel "stretch"']);
    const live = () => gw.gateway.feature(schedulerFeature)!.scheduler!.list({ kind: "operator" }, { everyone: true });

    const other = fake.pressButton(list, 'Cancel "stretch"', mallory, { guildId: fake.world.guild.id });
    await until(() => other.responseType !== undefined, "the refusal");
    expect(other.responseData).toMatchObject({ content: "This button is not for you." });
    expect(await live()).toHaveLength(1);

    fake.pressButton(list, 'Cancel "stretch"', stranger, { guildId: fake.world.guild.id });
    await posted(/^Cancelled "stretch"/);
    expect(await live()).toHaveLength(0);
  });

  it("a step-limited turn's Continue runs a follow-up turn", async () => {
    const gw = await start({ llm: { maxSteps: 1 } });
    gw.fake.enqueue({ toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "read_file" } }] });
    const dm = fake.dmChannelWith(owner);
    fake.dispatch("MESSAGE_CREATE", messagePayload({ channelId: dm.id, author: owner, content: "long job" }));
    const stopped = await posted(/I stopped after 1 steps/);
    expect(labels(stopped)).toEqual(["Continue"]);
    gw.fake.enqueue({ text: "Finished." });
    fake.pressButton(stopped, "Continue", owner);
    await posted(/^Finished\.$/);
    expect(gw.fake.requests).toHaveLength(2);
  });

  it("registers the slash commands and answers /status through the command table", async () => {
    await start();
    await until(() => fake.commands.has("global"), "the slash commands");
    const commands = fake.commands.get("global")!;
    expect(commands.map((c) => c.name)).toEqual(["help", "new", "status", "stop", "language", "remind", "tasks", "voice", "usage"]);
    expect(commands.find((c) => c.name === "remind")?.options).toEqual([
      { type: 3, name: "text", description: "What follows /remind", description_localizations: { "zh-CN": "/remind 后面的内容", "zh-TW": "/remind 后面的内容" }, required: false },
    ]);
    expect(commands.find((c) => c.name === "status")?.options).toEqual([]);

    const status = fake.slashCommand("status", undefined, owner, { channelId: fake.world.general.id, guildId: fake.world.guild.id });
    await until(() => status.original !== undefined, "the answer to /status");
    expect(status.responseType).toBe(5);
    expect(status.original).toMatch(/^Session: discord:/);
    expect(status.original).toMatch(/\nTurn: idle/);
  });

  it("the slash commands carry their Chinese descriptions for Chinese clients (zh-CN, zh-TW), the default's for the others", async () => {
    await start();
    await until(() => fake.commands.has("global"), "the slash commands");
    const help = fake.commands.get("global")!.find((c) => c.name === "help")!;
    expect(help.description).toBe("Show this help");
    expect(help.description_localizations).toEqual({ "zh-CN": zhHans.commands.help.summary, "zh-TW": zhHans.commands.help.summary });
    for (const command of fake.commands.get("global")!) expect(command.description_localizations?.["zh-CN"]).toBe(zhHans.commands[command.name as keyof typeof zhHans.commands].summary);
  });

  it("with Chinese as the default, the description is Chinese and English clients (en-US, en-GB) get theirs", async () => {
    await start({ i18n: { default: "zh-Hans" } });
    await until(() => fake.commands.has("global"), "the slash commands");
    const stop = fake.commands.get("global")!.find((c) => c.name === "stop")!;
    expect(stop.description).toBe(zhHans.commands.stop.summary);
    expect(stop.description_localizations).toEqual({ "en-US": "Cancel the running turn and drop queued messages", "en-GB": "Cancel the running turn and drop queued messages" });
  });

  it("the fake refuses what Discord refuses: an unknown locale key, a description over 100 characters in any locale", async () => {
    fake = await startFakeDiscord();
    const put = (command: Record<string, unknown>) =>
      fetch(`${fake.apiUrl}/v10/applications/${fake.bot.id}/commands`, {
        method: "PUT",
        headers: { authorization: `Bot ${fake.token}`, "content-type": "application/json" },
        body: JSON.stringify([{ type: 1, name: "help", description: "Show this help", ...command }]),
      }).then((r) => r.status);
    expect(await put({ description_localizations: { "zh-CN": "显示本帮助" } })).toBe(200);
    expect(await put({ description_localizations: { zh: "显示本帮助" } })).toBe(400);
    expect(await put({ description_localizations: { "zh-Hans": "显示本帮助" } })).toBe(400);
    expect(await put({ description_localizations: { "zh-CN": "长".repeat(101) } })).toBe(400);
    expect(await put({ options: [{ type: 3, name: "text", description: "x", description_localizations: { "en-us": "x" } }] })).toBe(400);
    expect(await put({ description: "x".repeat(101) })).toBe(400);
  });

  it("answers in the language a person's client told on a slash command, also to their plain messages later", async () => {
    await start({ access: { dmPolicy: "open" } });
    const chinese = user("wang");
    const slash = fake.slashCommand("help", undefined, chinese, { channelId: fake.world.general.id, guildId: fake.world.guild.id, locale: "zh-CN" });
    await until(() => slash.original !== undefined, "the answer to /help");
    expect(slash.original).toContain(`/help - ${zhHans.commands.help.summary}`);

    const dm = fake.dmChannelWith(chinese);
    fake.dispatch("MESSAGE_CREATE", messagePayload({ channelId: dm.id, author: chinese, content: "/help" }));
    expect((await posted(new RegExp(`/help - ${zhHans.commands.help.summary}`))).channelId).toBe(dm.id);
    const otherDm = fake.dmChannelWith(stranger);
    fake.dispatch("MESSAGE_CREATE", messagePayload({ channelId: otherDm.id, author: stranger, content: "/help" }));
    expect((await posted(/\/help - show this help/)).channelId).toBe(otherDm.id);
  });

  it("a slash command that gets no answer (a channel not allowed) has its placeholder removed", async () => {
    await start({}, () => []);
    const status = fake.slashCommand("status", undefined, stranger, { channelId: fake.world.general.id, guildId: fake.world.guild.id });
    await until(() => status.deleted === true, "the placeholder removed");
    expect(status.responseType).toBe(5);
    expect(status.original).toBeUndefined();
  });

  it("per-server registration, and a refused registration does not stop the start", async () => {
    fake = await startFakeDiscord();
    fake.failNext({ method: "PUT", path: /^\/applications\/\d+\/guilds\/\d+\/commands$/, status: 403 });
    t = await startTestGateway({ channels: { discord: { token: fake.token, apiUrl: fake.apiUrl, slashCommands: "guilds" } }, access: { dmPolicy: "open" } });
    const gw = t;
    await until(() => gw.logs.some((r) => /could not register the command menu/.test(r.msg)), "the logged refusal");
    gw.fake.enqueue({ text: "still here" });
    const dm = fake.dmChannelWith(owner);
    fake.dispatch("MESSAGE_CREATE", messagePayload({ channelId: dm.id, author: owner, content: "hello" }));
    await posted(/^still here$/);
  });
});
