/** Access control through the fake Discord (REST and gateway): the real discord.js adapter, router and agent. */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../src/config.js";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { messagePayload, startFakeDiscord, until, user, type FakeDiscord, type FakeUser } from "../fakes/discord/index.js";
import { catalogOf, pairingCli, pairingCodeIn } from "./helpers.js";
import { closeInOrder } from "../helpers/close.js";

let fake: FakeDiscord | undefined;
let t: TestGateway | undefined;
afterEach(() => closeInOrder([t, fake]).then(() => (t = fake = undefined)));

const dora = user("dora");
const eve = user("eve");

async function start(access: (d: FakeDiscord) => ConfigInput["access"]): Promise<{ t: TestGateway; fake: FakeDiscord }> {
  fake = await startFakeDiscord();
  t = await startTestGateway({ channels: { discord: { token: fake.token, apiUrl: fake.apiUrl } }, access: access(fake) });
  return { t, fake };
}

/** A mention of the bot in #general (or `channelId`), from `author` holding `roles`. */
function mention(d: FakeDiscord, author: FakeUser, text: string, roles: string[] = [], channelId = d.world.general.id): Record<string, unknown> {
  return messagePayload({
    channelId,
    guildId: d.world.guild.id,
    author,
    content: `<@${d.bot.id}> ${text}`,
    mentions: [d.bot],
    memberRoles: roles,
  });
}

const repliesIn = (d: FakeDiscord, channelId: string) => d.messages.filter((m) => m.channelId === channelId);

describe("access control on Discord", () => {
  it("pairs an unknown DM user: a code and nothing else, approval with the CLI, then answers", async () => {
    const { t, fake } = await start(() => ({}));
    t.fake.respondWith(() => ({ text: "Welcome, Dora." }));
    const dm = fake.dmChannelWith(dora);
    fake.dispatch("MESSAGE_CREATE", messagePayload({ channelId: dm.id, author: dora, content: "hello?" }));
    await until(() => repliesIn(fake, dm.id).length === 1, "the pairing prompt");
    const code = pairingCodeIn(String(repliesIn(fake, dm.id)[0]!.payload.content));
    expect(t.fake.requests).toHaveLength(0);

    expect(await pairingCli(t.config.dataDir, "approve", "discord", code)).toContain(`(discord:${dora.id})`);
    fake.dispatch("MESSAGE_CREATE", messagePayload({ channelId: dm.id, author: dora, content: "hello again" }));
    await until(() => repliesIn(fake, dm.id).length === 2, "the answer");
    expect(repliesIn(fake, dm.id)[1]!.payload.content).toBe("Welcome, Dora.");
  });

  it("answers only in listed channels of an allowed server, and only people holding a listed role", async () => {
    const { t, fake } = await start((d) => ({
      groups: [{ guild: `discord:${d.world.guild.id}`, channels: [d.world.general.id], roles: [d.world.admins.id] }],
    }));
    t.fake.respondWith(() => ({ text: "at your service" }));
    const { general, forum, admins } = fake.world;
    fake.dispatch("MESSAGE_CREATE", mention(fake, eve, "help me", []));
    fake.dispatch("MESSAGE_CREATE", mention(fake, dora, "over here", [admins.id], forum.id));
    fake.dispatch("MESSAGE_CREATE", mention(fake, dora, "and now?", [admins.id]));
    await until(() => repliesIn(fake, general.id).length === 1, "the answer to the admin");
    const refused = () => t.logs.filter((l) => l.msg === "message refused");
    await until(() => refused().length === 2, "two refusals");
    const refusals = refused();
    expect(refusals.map((l) => l.reason)).toEqual(
      expect.arrayContaining([expect.stringContaining("none of the roles"), expect.stringContaining("not on the allowlist")]),
    );
    expect(t.fake.requests).toHaveLength(1);
    expect(repliesIn(fake, forum.id)).toEqual([]);
  });

  it("refuses a guest of an open server who asks for a script, and the model's call to it", async () => {
    const { t, fake } = await start(() => ({ groupPolicy: "open" }));
    t.fake.enqueue(
      { toolCalls: [{ name: "run_skill_script", arguments: { skill_name: "date-helper", script: "scripts/now.sh" } }] },
      { text: "Scripts are not allowed for you here." },
    );
    fake.dispatch("MESSAGE_CREATE", mention(fake, eve, "run the date-helper script"));
    await until(() => fake!.messages.length === 1, "the refusal");
    expect(fake.messages[0]!.payload.content).toBe("Scripts are not allowed for you here.");
    const [first, second] = t.fake.requests;
    expect(catalogOf(first!)).not.toContain("run_skill_script");
    expect(JSON.stringify(second!.body.messages?.filter((m) => m.role === "tool"))).toMatch(/The tool run_skill_script needs the \\"exec\\" permission/);
  });
});
