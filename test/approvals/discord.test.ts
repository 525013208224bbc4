/** Approvals on Discord through the whole gateway: the request's buttons (components) and who may press them. */
import { afterEach, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { messagePayload, startFakeDiscord, until, user, type FakeDiscord, type PostedMessage } from "../fakes/discord/index.js";
import { toolResultsOf } from "../fakes/openai-server.js";
import { closeInOrder } from "../helpers/close.js";
import { buttonRows, postedMatching } from "../channels/discord/helpers.js";
import { WRITE_NOTE, MEMBERS_WRITE_IN_GROUPS } from "./fixtures.js";

let fake: FakeDiscord;
let t: TestGateway | undefined;
afterEach(() => closeInOrder([t, fake]).then(() => (t = undefined)));

const owner = user("owner");
const member = user("member");
const other = user("other");

async function start(): Promise<TestGateway> {
  fake = await startFakeDiscord();
  t = await startTestGateway({
    approvals: { mode: "always", tools: ["write_file"] },
    channels: { discord: { token: fake.token, apiUrl: fake.apiUrl, streaming: "off", ackReaction: null } },
    access: {
      owners: [`discord:${owner.id}`],
      allowFrom: [`discord:${member.id}`, `discord:${other.id}`],
      groups: [{ guild: `discord:${fake.world.guild.id}`, requireMention: false }],
      permissions: MEMBERS_WRITE_IN_GROUPS,
    },
  });
  return t;
}

const posted = (pattern: RegExp): Promise<PostedMessage> => postedMatching(fake, pattern);

/** A press in the server's channel carries the server, as Discord's interaction does. */
const inGuild = () => ({ guildId: fake.world.guild.id });

async function askToWrite(gw: TestGateway, reply: string): Promise<PostedMessage> {
  gw.fake.enqueue({ toolCalls: [WRITE_NOTE] }, { text: reply });
  const place = { channelId: fake.world.general.id, guildId: fake.world.guild.id };
  fake.dispatch("MESSAGE_CREATE", messagePayload({ ...place, author: member, content: "write a note" }));
  return posted(/^Approval needed/);
}

describe("approvals on Discord", () => {
  it("waits for the button: another member's press is refused, the asker's Approve runs the tool", async () => {
    const gw = await start();
    const prompt = await askToWrite(gw, "Written.");
    expect(buttonRows(prompt)).toEqual([["Approve once", "Deny"], ["Always for this tool in this chat"]]);

    const refused = fake.pressButton(prompt, "Approve once", other, inGuild());
    await until(() => refused.responseType !== undefined, "the refusal");
    expect(refused).toMatchObject({ responseData: { content: "This button is not for you.", flags: 64 } });
    expect(gw.fake.requests).toHaveLength(1);

    const press = fake.pressButton(prompt, "Approve once", member, inGuild());
    await until(() => press.responseType !== undefined, "the answer to the press");
    await posted(/^Written\.$/);
    expect(toolResultsOf(gw.fake.requests[1]!)[0]?.content).toMatchObject({ bytesWritten: 5 });
  });

  it("Deny: the tool does not run", async () => {
    const gw = await start();
    const prompt = await askToWrite(gw, "Not written.");
    fake.pressButton(prompt, "Deny", member, inGuild());
    await posted(/^Not written\.$/);
    expect(toolResultsOf(gw.fake.requests[1]!)[0]?.content).toMatchObject({ code: "denied" });
  });
});
