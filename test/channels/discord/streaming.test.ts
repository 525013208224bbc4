/** Discord replies as they are written: a preview message edited in place, then the rest as further messages. */
import { afterEach, describe, expect, it } from "vitest";
import { splitMessage } from "../../../src/channels/discord/send.js";
import { startTestGateway, type TestGateway } from "../../e2e/harness.js";
import { messagePayload, startFakeDiscord, until, user, type FakeDiscord } from "../../fakes/discord/index.js";
import { longMarkdown } from "../../helpers/long-markdown.js";
import { closeInOrder } from "../../helpers/close.js";
import { VirtualClock } from "../../helpers/clock.js";

let fake: FakeDiscord;
let t: TestGateway | undefined;
afterEach(() => closeInOrder([t, fake]).then(() => (t = undefined)));

/** The gateway's live replies, the fake model's streaming and the fake's timestamps all run on it. */
const clock = new VirtualClock();

async function start(streaming: "off" | "preview"): Promise<TestGateway> {
  fake = await startFakeDiscord({ now: () => clock.now() });
  t = await startTestGateway(
    {
      channels: { discord: { token: fake.token, apiUrl: fake.apiUrl, streaming } },
      access: { dmPolicy: "open", groups: [{ guild: `discord:${fake.world.guild.id}` }] },
    },
    { clock },
  );
  return t;
}

const mention = (text: string) =>
  messagePayload({
    channelId: fake.world.general.id,
    guildId: fake.world.guild.id,
    author: user("alice"),
    content: `<@${fake.bot.id}> ${text}`,
    mentions: [fake.bot],
  });

const visible = () => fake.messages.filter((m) => !m.deleted).map((m) => String(m.payload.content));

const answer = longMarkdown();
// 7.5 characters a millisecond of the test clock, in pieces the gateway handles one by one in real time.
const SLOW = { pieceSize: 600, delayMs: 80 };
const expected = splitMessage(answer);

describe("Discord streaming", () => {
  it("edits a preview at most once a second and ends with the messages a plain reply sends (12,000 characters)", async () => {
    const gw = await start("preview");
    gw.fake.enqueue({ text: answer, streaming: SLOW });
    fake.dispatch("MESSAGE_CREATE", mention("count to sixty"));
    await until(() => JSON.stringify(visible()) === JSON.stringify(expected), "the whole answer", 20_000);

    expect(expected.length).toBeGreaterThanOrEqual(6);
    expect(fake.edits.length).toBeGreaterThan(0);
    for (let i = 1; i < fake.edits.length; i++) expect(fake.edits[i]!.at - fake.edits[i - 1]!.at).toBeGreaterThanOrEqual(1_000);
  });

  it("pings nobody its streamed text names: every edit and every further part carries the create's allowed_mentions", async () => {
    const gw = await start("preview");
    const names = "@everyone @here <@&123456789012345678> <@234567890123456789>";
    const pinging = `${names}\n\n${answer.slice(0, 3_000)}\n\n${names}`;
    // Slow enough (about 2 s) for edits on the way, not only the final one.
    gw.fake.enqueue({ text: pinging, streaming: { pieceSize: 60, delayMs: 40 } });
    fake.dispatch("MESSAGE_CREATE", mention("name everyone"));
    await until(() => JSON.stringify(visible()) === JSON.stringify(splitMessage(pinging)), "the whole answer", 20_000);

    expect(fake.edits.length).toBeGreaterThan(0);
    expect(fake.messages.length).toBeGreaterThanOrEqual(2);
    const created = fake.messages[0]!.payload.allowed_mentions;
    expect(created).toEqual({ parse: [], replied_user: true });
    for (const e of fake.edits) expect(e.payload.allowed_mentions).toEqual(created);
    for (const m of fake.messages) expect(m.payload.allowed_mentions).toEqual(created);
    expect(fake.pings).toEqual([]);
  });

  it("replaces the preview with the apology when the model fails midway", async () => {
    const gw = await start("preview");
    gw.fake.enqueue({ text: answer, streaming: { pieceSize: 40, delayMs: 40, failAfterChars: 1_500 } });
    fake.dispatch("MESSAGE_CREATE", mention("count"));
    await until(() => visible().length > 0, "a preview", 10_000);

    await until(() => visible().length === 1 && /^Sorry, I could not get an answer/.test(visible()[0]!), "the apology alone", 10_000);
    // The preview itself became the apology.
    expect(fake.edits.at(-1)!.content).toMatch(/^Sorry, I could not get an answer/);
  });

  it("takes the preview back when the turn is stopped", async () => {
    const gw = await start("preview");
    gw.fake.enqueue({ text: answer, streaming: { pieceSize: 20, delayMs: 10 } });
    fake.dispatch("MESSAGE_CREATE", mention("count"));
    await until(() => visible().length > 0, "a preview", 10_000);
    fake.dispatch("MESSAGE_CREATE", mention("/stop"));

    await until(() => visible().includes("Stopped the running turn."), "the /stop answer", 10_000);
    await until(() => visible().length === 1, "only the /stop answer left", 5_000);
  });

  it("waits out a 429 on an edit and still ends with the whole answer", async () => {
    const gw = await start("preview");
    fake.failNext({ method: "PATCH", path: /^\/channels\/\d+\/messages\/\d+$/, status: 429, retryAfterSec: 1 });
    gw.fake.enqueue({ text: answer, streaming: SLOW });
    fake.dispatch("MESSAGE_CREATE", mention("count"));
    await until(() => JSON.stringify(visible()) === JSON.stringify(expected), "the whole answer", 20_000);
    expect(fake.requests.some((r) => r.method === "PATCH" && r.status === 429)).toBe(true);
  });

  it("sends a part anew when its preview was deleted while it grew", async () => {
    const gw = await start("preview");
    // Plain lines trickling slowly: the first 2000-character part grows for seconds after its preview appears.
    const lines = Array.from({ length: 60 }, (_, i) => `${i + 1}. A line of the answer, **bold** here and there.`).join("\n");
    gw.fake.enqueue({ text: lines, streaming: { pieceSize: 50, delayMs: 100 } });
    fake.dispatch("MESSAGE_CREATE", mention("count"));
    await until(() => fake.messages.length > 0, "a preview", 10_000);
    fake.messages[0]!.deleted = true;
    await until(() => JSON.stringify(visible()) === JSON.stringify(splitMessage(lines)), "the whole answer", 20_000);
    expect(fake.messages.length).toBeGreaterThan(splitMessage(lines).length);
  });

  it("sends the answer whole when streaming is off", async () => {
    const gw = await start("off");
    gw.fake.enqueue({ text: answer, streaming: SLOW });
    fake.dispatch("MESSAGE_CREATE", mention("count"));
    await until(() => visible().length === expected.length, "the answer", 20_000);
    expect(visible()).toEqual(expected);
    expect(fake.edits).toHaveLength(0);
  });

  it("reacts to the message while its turn runs and takes the reaction back once the reply is out", async () => {
    const gw = await start("preview");
    const question = mention("count to sixty");
    const key = `${fake.world.general.id}/${String(question.id)}`;
    // The reaction comes a second (of the test clock) into the turn: the model answers once it is there.
    const reacted = until(() => fake.reactions.get(key)?.[0] === "👀", "the reaction", 10_000);
    gw.fake.enqueue({ text: answer, streaming: SLOW, heldUntil: reacted });
    fake.dispatch("MESSAGE_CREATE", question);

    await reacted;
    await until(() => visible().length === expected.length, "the answer", 20_000);
    await until(() => fake.reactions.get(key)?.length === 0, "the reaction taken back", 10_000);
  });
});
