/**
 * Two agents in one gateway, routed by chat on Telegram and by guild on Discord: each model request carries its
 * agent's prompt and only its agent's tools; /agent switches a chat where routing allows it and refuses elsewhere.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../src/config.js";
import { startTestGateway, userTextsOf, type TestGateway } from "../e2e/harness.js";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram/server.js";
import { alice, directChat, groupChat, messageOf, text } from "../fakes/telegram/updates.js";
import { messagePayload, startFakeDiscord, until, user, type FakeDiscord } from "../fakes/discord/index.js";
import { systemPromptOf, toolNamesOf, type FakeRequest } from "../fakes/openai-server.js";
import { closeInOrder } from "../helpers/close.js";

let t: TestGateway | undefined;
let platform: { close(): Promise<unknown> } | undefined;
afterEach(() => closeInOrder([t, platform]).then(() => (t = platform = undefined)));

const SUPPORT_PROMPT = "You answer questions about the product manual, politely.";
const FAMILY_PROMPT = "You help the family plan their week.";

const agents: ConfigInput["agents"] = {
  default: { name: "Homebot", prompt: FAMILY_PROMPT, tools: ["scheduled"] },
  support: { name: "Helpdesk", prompt: SUPPORT_PROMPT, tools: ["get_tool_info", "filesystem"], language: "English" },
};

function expectAgent(request: FakeRequest, agent: "default" | "support"): void {
  const system = systemPromptOf(request);
  const tools = toolNamesOf(request);
  if (agent === "support") {
    expect(system).toContain("You are Helpdesk.");
    expect(system).toContain(SUPPORT_PROMPT);
    expect(system).toContain("Reply in English");
    expect(system).not.toContain(FAMILY_PROMPT);
    // Its allowlist, narrowed further by the sender's permissions (a group's guest may not write files).
    expect(tools).toEqual(expect.arrayContaining(["get_tool_info", "list_directory", "read_file"]));
    expect(tools.every((tool) => ["get_tool_info", "list_directory", "read_file", "write_file"].includes(tool))).toBe(true);
  } else {
    expect(system).toContain("You are Homebot.");
    expect(system).toContain(FAMILY_PROMPT);
    expect(system).not.toContain(SUPPORT_PROMPT);
    expect(tools).toEqual(expect.arrayContaining(["schedule_task", "list_scheduled_tasks", "cancel_scheduled_task"]));
    expect(tools.every((tool) => tool.includes("scheduled") || tool.includes("task"))).toBe(true);
  }
  // The gateway's own rules stay around the agent's prompt.
  expect(system).toContain("## Principles");
}

describe("agents routed by chat and by guild", () => {
  it("Telegram: the group goes to support by its (prefixed) chat id, the direct chat to default", async () => {
    const tg: FakeTelegram = await startFakeTelegram();
    platform = tg;
    t = await startTestGateway({
      channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1 } },
      access: { allowFrom: [`telegram:${alice.id}`], groups: [{ chat: `telegram:${groupChat.id}`, requireMention: false }] },
      agents,
      routing: [{ match: { chat: `telegram:${groupChat.id}` }, agent: "support" }],
    });
    t.fake.respondWith((request) => ({ text: `answer to ${userTextsOf(request).at(-1)?.includes("manual") ? "manual" : "week"}` }));
    const inGroup = text(groupChat, "where is the manual?");
    tg.addUpdate(inGroup);
    await tg.waitFor(() => tg.sent.find((s) => s.replyTo === messageOf(inGroup).message_id), 10_000);
    const direct = text(directChat(), "plan my week");
    tg.addUpdate(direct);
    await tg.waitFor(() => tg.sent.find((s) => s.replyTo === messageOf(direct).message_id), 10_000);

    const [first, second] = t.fake.requests;
    expectAgent(first!, "support");
    expectAgent(second!, "default");
  });

  it("Discord: a guild's channels go to support by the guild id, direct messages to default", async () => {
    const discord: FakeDiscord = await startFakeDiscord();
    platform = discord;
    const bob = user("bob");
    t = await startTestGateway({
      channels: { discord: { token: discord.token, apiUrl: discord.apiUrl, streaming: "off" } },
      access: { dmPolicy: "open", groups: [{ guild: `discord:${discord.world.guild.id}` }] },
      agents,
      routing: [{ match: { channel: "discord", space: discord.world.guild.id, chatKind: "group" }, agent: "support" }],
    });
    t.fake.respondWith(() => ({ text: "ok" }));
    const { guild, general } = discord.world;
    discord.dispatch(
      "MESSAGE_CREATE",
      messagePayload({ channelId: general.id, guildId: guild.id, author: bob, content: `<@${discord.bot.id}> manual?`, mentions: [discord.bot] }),
    );
    await until(() => discord.messages.length === 1, "the guild reply");
    discord.dispatch("MESSAGE_CREATE", messagePayload({ channelId: discord.dmChannelWith(bob).id, author: bob, content: "my week?" }));
    await until(() => discord.messages.length === 2, "the direct reply");

    expectAgent(t.fake.requests[0]!, "support");
    expectAgent(t.fake.requests[1]!, "default");
  });
});

describe("/agent", () => {
  async function withSwitching(): Promise<TestGateway> {
    t = await startTestGateway({
      agents,
      routing: [
        { match: { channel: "web", chat: "open-room" }, agent: "default", allowSwitch: true },
        { match: { chat: "web:locked-room" }, agent: "default" },
      ],
    });
    t.fake.respondWith((request) => ({ text: `reply ${t!.fake.requests.indexOf(request)}` }));
    return t;
  }

  it("switches a chat whose rule allows it; the histories of the two agents stay apart", async () => {
    const t = await withSwitching();
    await t.post({ chatId: "open-room", userId: "alice", text: "first words to homebot" });
    const listed = await t.post({ chatId: "open-room", userId: "alice", text: "/agent" });
    expect(listed.body.replies?.[0]?.text).toMatch(/answered by Homebot \(default\)[\s\S]*- support \(Helpdesk\)/);

    const switched = await t.post({ chatId: "open-room", userId: "alice", text: "/agent support" });
    expect(switched.body.replies?.[0]?.text).toContain("now answered by Helpdesk (support)");
    await t.post({ chatId: "open-room", userId: "alice", text: "hello helpdesk" });
    const afterSwitch = t.fake.requests.at(-1)!;
    expectAgent(afterSwitch, "support");
    expect(JSON.stringify(afterSwitch.body.messages)).not.toContain("first words to homebot");

    await t.post({ chatId: "open-room", userId: "alice", text: "/agent default" });
    await t.post({ chatId: "open-room", userId: "alice", text: "back again" });
    const back = t.fake.requests.at(-1)!;
    expectAgent(back, "default");
    expect(JSON.stringify(back.body.messages)).toContain("first words to homebot");
    expect(JSON.stringify(back.body.messages)).not.toContain("hello helpdesk");
  });

  it("refuses where routing sets the agent, and names the choices for an unknown id", async () => {
    const t = await withSwitching();
    const refused = await t.post({ chatId: "locked-room", userId: "alice", text: "/agent support" });
    expect(refused.body.replies?.[0]?.text).toContain("cannot be switched here");
    const unknown = await t.post({ chatId: "open-room", userId: "alice", text: "/agent nobody" });
    expect(unknown.body.replies?.[0]?.text).toContain('no agent "nobody"');
    expect(unknown.body.replies?.[0]?.text).toContain("default, support");
    await t.post({ chatId: "locked-room", userId: "alice", text: "hi" });
    expectAgent(t.fake.requests.at(-1)!, "default");
  });
});
