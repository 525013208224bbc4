/**
 * The whole gateway with the Discord channel on: the fake Discord on one side, the fake LLM on the other.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../../src/config.js";
import { startTestGateway, userTextsOf, type TestGateway } from "../../e2e/harness.js";
import { messagePayload, startFakeDiscord, until, user, type FakeDiscord, type FakeDiscordOptions, type MessageOptions } from "../../fakes/discord/index.js";
import { closeInOrder } from "../../helpers/close.js";
import { TYPING_DELAY_MS } from "../../../src/gateway/acknowledge.js";

let fake: FakeDiscord;
let t: TestGateway | undefined;
afterEach(() => closeInOrder([t, fake]).then(() => (t = undefined)));

const alice = user("alice");

interface StartOptions {
  discord?: NonNullable<ConfigInput["channels"]>["discord"];
  llm?: ConfigInput["llm"];
  fake?: FakeDiscordOptions;
  /** Default: the whole test server is allowed and DMs are open. */
  access?: (world: FakeDiscord["world"]) => ConfigInput["access"];
}

async function start(opts: StartOptions = {}): Promise<TestGateway> {
  fake = await startFakeDiscord(opts.fake);
  const access = opts.access?.(fake.world) ?? { dmPolicy: "open", groups: [{ guild: `discord:${fake.world.guild.id}` }] };
  t = await startTestGateway({
    channels: { discord: { token: fake.token, apiUrl: fake.apiUrl, ...opts.discord } },
    access,
    llm: opts.llm ?? {},
  });
  return t;
}

function mention(text: string, extra: Partial<MessageOptions> = {}): Record<string, unknown> {
  return messagePayload({
    channelId: fake.world.general.id,
    guildId: fake.world.guild.id,
    author: alice,
    content: `<@${fake.bot.id}> ${text}`,
    mentions: [fake.bot],
    ...extra,
  });
}

const lastUserText = (gw: TestGateway) => userTextsOf(gw.fake.requests.at(-1)!).at(-1) ?? "";
const logged = (gw: TestGateway, msg: string) => gw.logs.some((l) => l.msg === msg);

describe("Discord end to end", () => {
  it("answers a mention in a guild channel, in reply to it, after showing typing", async () => {
    // Not streamed, so the reply is one message; slow enough for "typing" (quicker replies need none).
    const gw = await start({ discord: { streaming: "off" } });
    gw.fake.respondWith(() => ({ text: "Hello **Alice**, see https://example.com", delayMs: 2 * TYPING_DELAY_MS }));
    const question = mention("what is 2+2?");
    fake.dispatch("MESSAGE_CREATE", question);
    await until(() => fake.messages.length === 1, "the reply");

    expect(fake.messages[0]).toMatchObject({
      channelId: fake.world.general.id,
      payload: { content: "Hello **Alice**, see https://example.com", message_reference: { message_id: question.id }, flags: 4 },
    });
    expect(fake.typing).toContain(fake.world.general.id);
    expect(lastUserText(gw)).toContain("what is 2+2?");
    expect(lastUserText(gw)).not.toContain(fake.bot.id);
  });

  it("answers another bot only when allowBots is on", async () => {
    const helper = user("helper-bot", { bot: true });
    const fromBot = () => mention("status please", { author: helper });

    const closed = await start();
    closed.fake.respondWith(() => ({ text: "for bots" }));
    fake.dispatch("MESSAGE_CREATE", fromBot());
    fake.dispatch("MESSAGE_CREATE", mention("and for people"));
    await until(() => fake.messages.length === 1, "the reply to the person");
    expect(closed.fake.requests).toHaveLength(1);
    await closed.close();
    await fake.close();

    const open = await start({ discord: { allowBots: true } });
    open.fake.respondWith(() => ({ text: "for bots" }));
    fake.dispatch("MESSAGE_CREATE", fromBot());
    await until(() => fake.messages.length === 1, "the reply to the bot");
    expect(lastUserText(open)).toContain("status please");
  });

  it("stays quiet on a guild message that does not mention the bot", async () => {
    const gw = await start();
    gw.fake.respondWith(() => ({ text: "answer" }));
    fake.dispatch("MESSAGE_CREATE", messagePayload({ channelId: fake.world.general.id, guildId: fake.world.guild.id, author: alice, content: "just chatting" }));
    fake.dispatch("MESSAGE_CREATE", mention("now you"));
    await until(() => fake.messages.length === 1, "the reply to the mention");
    expect(gw.fake.requests).toHaveLength(1);
    expect(lastUserText(gw)).toContain("now you");
  });

  it("answers a DM in the DM channel", async () => {
    const gw = await start();
    gw.fake.respondWith(() => ({ text: "private answer" }));
    const dm = fake.dmChannelWith(alice);
    fake.dispatch("MESSAGE_CREATE", messagePayload({ channelId: dm.id, author: alice, content: "hello in private" }));
    await until(() => fake.messages.length === 1, "the DM reply");
    expect(fake.messages[0]).toMatchObject({ channelId: dm.id, payload: { content: "private answer" } });
  });

  it("keeps the reply in the thread it was asked in", async () => {
    const gw = await start();
    gw.fake.respondWith(() => ({ text: "thread answer" }));
    fake.dispatch("MESSAGE_CREATE", mention("help in the thread", { channelId: fake.world.helpThread.id }));
    await until(() => fake.messages.length === 1, "the thread reply");
    expect(fake.messages[0]!.channelId).toBe(fake.world.helpThread.id);
  });

  it("downloads an image for a vision model and shows it to the model", async () => {
    const gw = await start({ llm: { vision: true, model: "fake-vision-model" } });
    gw.fake.respondWith(() => ({ text: "a red dot" }));
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
    const url = fake.serveFile("dot.png", png, "image/png");
    const image = { id: "123456789012345678", filename: "dot.png", size: png.length, url, proxy_url: url, content_type: "image/png" };
    fake.dispatch("MESSAGE_CREATE", mention("what is this?", { attachments: [image] }));
    await until(() => fake.messages.length === 1, "the reply");

    expect(fake.requests.some((r) => r.path.endsWith("/dot.png") && r.status === 200)).toBe(true);
    const sent = JSON.stringify(gw.fake.requests[0]!.body.messages);
    expect(sent).toContain(png.toString("base64"));
    expect(sent).toContain("dot.png");
  });

  it("reconnects a zombie connection with the watchdog and answers the next message", async () => {
    const gw = await start({ discord: { watchdogSilenceMs: 1_000 }, fake: { heartbeatIntervalMs: 100 } });
    gw.fake.respondWith(() => ({ text: "still here" }));
    fake.zombie();
    await until(() => fake.gateway.identifies === 2, "a new IDENTIFY after the watchdog fired");
    await until(() => gw.logs.filter((l) => l.msg === "connected to the Discord gateway").length === 2, "the new connection");
    expect(logged(gw, "the Discord gateway went silent (zombie connection); reconnecting with a new session")).toBe(true);

    fake.dispatch("MESSAGE_CREATE", mention("are you there?"));
    await until(() => fake.messages.length === 1, "the reply on the new connection");
    expect(fake.messages[0]!.payload.content).toBe("still here");
  });

  it("answers once, after the watchdog's new session, what was posted while the socket was dead", async () => {
    const gw = await start({ discord: { watchdogSilenceMs: 1_000 }, fake: { heartbeatIntervalMs: 100 } });
    gw.fake.respondWith((request) => ({ text: `re: ${/(first|second|third)/.exec(JSON.stringify(request.body.messages?.at(-1)))?.[1] ?? "?"}` }));
    fake.post(mention("first"));
    await until(() => fake.messages.length === 1, "the reply before the outage");

    fake.zombie();
    fake.post(mention("second"));
    fake.post(mention("third"));
    await until(() => fake.gateway.identifies === 2, "a new session after the watchdog fired");
    await until(() => fake.messages.length === 3, "the missed messages answered after the reconnect");
    await until(() => logged(gw, "caught up on Discord messages posted while disconnected"), "the catch-up");

    expect(fake.messages.map((m) => m.payload.content)).toEqual(["re: first", "re: second", "re: third"]);
    expect(fake.requests.some((r) => r.method === "GET" && r.path.endsWith(`/channels/${fake.world.general.id}/messages`))).toBe(true);
    expect(gw.fake.requests).toHaveLength(3);
  });

  it("runs one turn for a message the gateway replays on resume", async () => {
    const gw = await start();
    gw.fake.respondWith(() => ({ text: "only once" }));
    fake.dispatch("MESSAGE_CREATE", mention("count me once"));
    await until(() => fake.messages.length === 1, "the first reply");

    fake.replayOnResume(1);
    fake.closeConnection(4000);
    await until(() => logged(gw, "duplicate delivery dropped"), "the replayed message to be dropped");
    expect(fake.gateway.resumes).toBe(1);

    fake.dispatch("MESSAGE_CREATE", mention("and a new one"));
    await until(() => fake.messages.length === 2, "the reply after the resume");
    expect(gw.fake.requests).toHaveLength(2);
  });

  it("runs one turn for a message delivered again after a restart", async () => {
    const gw = await start();
    gw.fake.respondWith(() => ({ text: "once" }));
    const question = mention("remember me");
    fake.dispatch("MESSAGE_CREATE", question);
    await until(() => fake.messages.length === 1, "the reply");

    await gw.restart();
    fake.dispatch("MESSAGE_CREATE", question);
    await until(() => logged(gw, "duplicate delivery dropped"), "the redelivery to be dropped");
    expect(fake.gateway.identifies).toBe(2);
    expect(gw.fake.requests).toHaveLength(1);
    expect(fake.messages).toHaveLength(1);
  });

  it.each(["off", "preview"] as const)(
    "answers once a message handled again after its reply went out, as after a kill before it was marked handled (streaming %s)",
    async (streaming) => {
      const first = await start({ discord: { streaming } });
      first.fake.respondWith(() => ({ text: "the first answer" }));
      const question = mention("answer me once");
      fake.dispatch("MESSAGE_CREATE", question);
      await until(() => fake.messages.length === 1, "the reply");
      await first.close();

      // A gateway whose store never learnt that the message was handled: it runs the turn again.
      const again = await startTestGateway({
        channels: { discord: { token: fake.token, apiUrl: fake.apiUrl, streaming } },
        access: { dmPolicy: "open", groups: [{ guild: `discord:${fake.world.guild.id}` }] },
      });
      t = again;
      again.fake.respondWith(() => ({ text: "a second answer" }));
      fake.dispatch("MESSAGE_CREATE", question);
      const posts = () => fake.requests.filter((r) => r.method === "POST" && /\/channels\/\d+\/messages$/.test(r.path));
      await until(() => posts().length === 2, "the second reply to be sent");
      expect(again.fake.requests).toHaveLength(1);
      // Discord answered the second send with the first reply (same nonce): the chat shows one answer.
      expect(fake.messages.map((m) => m.payload.content)).toEqual(["the first answer"]);
      expect(posts().map((r) => r.status)).toEqual([200, 200]);
    },
  );

  it("gives the access policy what it needs: server, parent channel of a thread, roles, always-reply chats", async () => {
    const gw = await start({
      access: (world) => ({
        groups: [
          { guild: `discord:${world.guild.id}`, channels: [world.general.id], roles: [world.admins.id] },
          { chat: `discord:${world.forum.id}`, requireMention: false },
        ],
      }),
    });
    gw.fake.respondWith(() => ({ text: "ok" }));
    const bob = user("bob");
    fake.dispatch("MESSAGE_CREATE", mention("admin asks in the thread", { channelId: fake.world.helpThread.id, memberRoles: [fake.world.admins.id] }));
    fake.dispatch("MESSAGE_CREATE", mention("no role, no answer", { author: bob }));
    fake.dispatch("MESSAGE_CREATE", messagePayload({ channelId: fake.world.forumPost.id, guildId: fake.world.guild.id, author: bob, content: "forum post, no mention" }));
    await until(() => fake.messages.length === 2, "the two allowed replies");
    await until(() => gw.logs.some((l) => l.audit === "refused" && l.userId === bob.id), "the refusal to be audited");

    expect(fake.messages.map((m) => m.channelId).sort()).toEqual([fake.world.helpThread.id, fake.world.forumPost.id].sort());
    expect(gw.fake.requests).toHaveLength(2);
    expect(JSON.stringify(gw.fake.requests.map((r) => r.body.messages))).not.toContain("no role, no answer");
  });

  it("shows the channel in /readyz, and this replica (one process on SQLite: no lease)", async () => {
    const gw = await start();
    const report = (await (await fetch(`${gw.url}/readyz`)).json()) as { components: Record<string, { ok: boolean; detail?: string }> };
    expect(report.components["channel:discord"]).toEqual({ ok: true });
    expect(report.components.replica).toEqual({ ok: true, detail: `${gw.gateway.replicas.id} (one process, SQLite)` });
  });
});
