/**
 * The whole gateway with the Slack channel on: the fake Slack on one side (the real @slack/web-api and
 * @slack/socket-mode clients talking to it), the fake LLM on the other.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../../src/config.js";
import { startTestGateway, userTextsOf, type TestGateway } from "../../e2e/harness.js";
import {
  admins,
  alice,
  appMentionOf,
  blockActions,
  bob,
  dmOf,
  general,
  mention,
  messageEvent,
  slashCommand,
  startFakeSlack,
  type BotMessage,
  type FakeSlack,
  type FakeSlackOptions,
} from "../../fakes/slack/index.js";
import { ACK_DELAY_MS } from "../../../src/gateway/acknowledge.js";
import { FINAL_ANSWER, placeHugeFile, REPORT, scriptDelivery } from "../../media/delivery-script.js";
import { closeInOrder } from "../../helpers/close.js";
import { eventually } from "../../helpers/wait.js";

let fake: FakeSlack | undefined;
let t: TestGateway | undefined;
afterEach(() => closeInOrder([t, fake]).then(() => (t = fake = undefined)));

type SlackInput = NonNullable<ConfigInput["channels"]>["slack"];

async function start(slack: SlackInput = {}, access?: ConfigInput["access"], fakeOptions?: FakeSlackOptions): Promise<{ gw: TestGateway; slack: FakeSlack }> {
  const started = await startFakeSlack(fakeOptions);
  fake = started;
  t = await startTestGateway({
    channels: { slack: { botToken: started.botToken, appToken: started.appToken, apiUrl: started.apiUrl, streaming: "off", ...slack } },
    access: access ?? { dmPolicy: "open", groups: [{ space: "slack:T0FAKE0001" }] },
  });
  if ((slack as { mode?: string } | undefined)?.mode !== "events") await eventually(() => started.socket.isConnected(), "the Socket Mode connection");
  return { gw: t, slack: started };
}

const posted = (slack: FakeSlack, pattern: RegExp): Promise<BotMessage> =>
  eventually(() => slack.api.sent().find((m) => pattern.test(m.text)), `a message matching ${pattern}`, 10_000);
const lastUserText = (gw: TestGateway) => userTextsOf(gw.fake.requests.at(-1)!).at(-1) ?? "";

describe("Slack end to end", () => {
  it("answers a DM over Socket Mode, every envelope acknowledged within 3 s, with the ack reaction while it runs", async () => {
    const { gw, slack } = await start({ ackReaction: "eyes" });
    gw.fake.respondWith(() => ({ text: "Hello **Alice**, see [the docs](https://example.com/a?b=1&c=2)", delayMs: 2 * ACK_DELAY_MS }));
    const question = messageEvent({ channel: dmOf(alice), user: alice, text: "what is 2+2?" });
    slack.pushEvent(question);
    slack.pushEvent({ type: "reaction_added", user: alice.id, reaction: "tada" });
    await eventually(() => slack.api.reactions.get(`${dmOf(alice)}/${String(question.ts)}`)?.includes("eyes"), "the ack reaction");
    const reply = await posted(slack, /Hello/);

    expect(reply).toMatchObject({ channel: dmOf(alice), text: "Hello *Alice*, see <https://example.com/a?b=1&amp;c=2|the docs>" });
    expect(reply.threadTs).toBeUndefined();
    expect(lastUserText(gw)).toContain("what is 2+2?");
    await eventually(() => slack.api.reactions.get(`${dmOf(alice)}/${String(question.ts)}`)?.length === 0, "the ack reaction taken back");
    expect(slack.socket.envelopes.map((e) => e.ackedAfterMs !== undefined && e.ackedAfterMs < 3_000)).toEqual([true, true]);
    expect(slack.socket.envelopes.every((e) => e.attempts === 1)).toBe(true);
  });

  it("answers a mention in a channel once, though it arrives as message and app_mention, in a thread under it", async () => {
    const { gw, slack } = await start();
    gw.fake.respondWith(() => ({ text: "thread answer" }));
    const question = messageEvent({ channel: general, user: alice, text: mention("help me here") });
    slack.pushEvent(question);
    slack.pushEvent(appMentionOf(question));
    const reply = await posted(slack, /thread answer/);
    expect(reply).toMatchObject({ channel: general, threadTs: question.ts });
    await eventually(() => slack.socket.envelopes.every((e) => e.ackedAfterMs !== undefined), "both envelopes acknowledged");

    // A follow-up in the bot's thread is addressed to it without a mention; chatter outside it is not.
    gw.fake.respondWith(() => ({ text: "second answer" }));
    slack.pushEvent(messageEvent({ channel: general, user: alice, text: "just chatting" }));
    slack.pushEvent(messageEvent({ channel: general, user: alice, text: "and a follow-up", threadTs: String(question.ts) }));
    const second = await posted(slack, /second answer/);
    expect(second.threadTs).toBe(question.ts);
    expect(gw.fake.requests).toHaveLength(2);
    expect(lastUserText(gw)).toContain("and a follow-up");
    expect(lastUserText(gw)).not.toContain("U0BOT00001");
  });

  it.each(["off", "preview"] as const)("splits a long reply into messages within 4,000 characters (streaming %s)", async (streaming) => {
    const { gw, slack } = await start({ streaming });
    const paragraphs = Array.from({ length: 30 }, (_, i) => `Paragraph ${i}: ${"lorem ipsum & dolor <sit> ".repeat(12)}`);
    gw.fake.respondWith(() => ({ text: paragraphs.join("\n\n"), streaming: { pieceSize: 400, delayMs: 20 } }));
    slack.pushEvent(messageEvent({ channel: dmOf(alice), user: alice, text: "write a lot" }));
    await eventually(() => slack.api.sent().some((m) => m.text.includes("Paragraph 29")), "the end of the reply", 15_000);

    const parts = slack.api.sent();
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const part of slack.api.messages) for (const text of part.history) expect(text.length).toBeLessThanOrEqual(4_000);
    const shown = parts.map((p) => p.text).join("\n\n");
    for (let i = 0; i < 30; i++) expect(shown).toContain(`Paragraph ${i}:`);
    expect(shown).toContain("lorem ipsum &amp; dolor &lt;sit&gt;");
  });

  it("sends a file the model wrote, through files.getUploadURLExternal and completeUploadExternal", async () => {
    // 50 MiB, as low as any platform's: the script's huge file is over it.
    const { gw, slack } = await start({ maxUploadMB: 50 }, { allowFrom: [`slack:${alice.id}`] });
    await placeHugeFile(gw.config.dataDir, `slack:${dmOf(alice)}`);
    scriptDelivery(gw.fake);
    slack.pushEvent(messageEvent({ channel: dmOf(alice), user: alice, text: "send me the report" }));
    await posted(slack, new RegExp(FINAL_ANSWER.replace(/[.;]/g, "\\$&")));

    const uploads = [...slack.api.uploads.values()].filter((u) => u.channel !== undefined);
    expect(uploads.map((u) => [u.filename, u.data?.toString(), u.channel, u.comment])).toEqual([["report.txt", REPORT, dmOf(alice), "Your report"]]);
    const methods = slack.api.calls.map((c) => c.method);
    expect(methods.filter((m) => m.startsWith("files."))).toEqual(["files.getUploadURLExternal", "files.completeUploadExternal"]);
  });

  it("refuses a button pressed by someone else; the owner's press takes the buttons off and acts once", async () => {
    const { slack } = await start({}, { owners: [`slack:${alice.id}`], dmPolicy: "pairing" });
    slack.pushEvent(messageEvent({ channel: dmOf(bob), user: bob, text: "hi there" }));
    await posted(slack, /pairing code is \w{8}/);
    const notice = await posted(slack, /asks to chat with me\. Pairing code/);
    expect(notice.channel).toBe(dmOf(alice));
    const buttons = (notice.blocks ?? []).filter((b) => b.type === "actions").flatMap((b) => b.elements as Array<{ action_id: string; text: { text: string } }>);
    expect(buttons.map((b) => b.text.text)).toEqual(["Approve", "Deny"]);
    const approve = buttons[0]!.action_id;
    const press = (by: typeof alice) => slack.socket.push("interactive", blockActions({ user: by, channel: notice.channel, message: { ts: notice.ts, text: notice.text, blocks: notice.blocks! }, actionId: approve }));

    press(bob);
    await eventually(() => slack.api.ephemerals.find((e) => e.user === bob.id), "the refusal, shown to the presser only");
    expect(slack.api.ephemerals).toEqual([{ channel: dmOf(alice), user: bob.id, text: "This button is not for you." }]);
    expect(slack.api.sent().find((m) => m.ts === notice.ts)!.blocks!.some((b) => b.type === "actions")).toBe(true);

    press(alice);
    await posted(slack, /^Approved bob|^Approved U0BOB/);
    const updated = slack.api.sent().find((m) => m.ts === notice.ts)!;
    expect(updated.blocks!.some((b) => b.type === "actions")).toBe(false);
    expect(slack.socket.envelopes.every((e) => e.ackedAfterMs !== undefined && e.ackedAfterMs < 3_000)).toBe(true);
  });

  it("never lets model text ping: <!everyone>, <!here>, user mentions and user groups are shown, not sent as mentions", async () => {
    const { gw, slack } = await start({ streaming: "preview" });
    const text = `Hey <!everyone> <!channel> <!here> @here <@${bob.id}> <!subteam^${admins.id}> ${"and more words ".repeat(10)}`;
    gw.fake.respondWith(() => ({ text, streaming: { pieceSize: 20, delayMs: 30 } }));
    slack.pushEvent(messageEvent({ channel: general, user: alice, text: mention("ping everyone please") }));
    const reply = await posted(slack, /^Hey/);
    await eventually(() => slack.api.sent().some((m) => m.text.includes("and more words and more words")), "the whole reply");
    expect(reply.text).toContain("&lt;!everyone&gt; &lt;!channel&gt; &lt;!here&gt; @here &lt;@U0BOB00001&gt;");
    expect(slack.api.pings).toEqual([]);
  });

  it("answers once an envelope Slack sends again because its acknowledgement was lost", async () => {
    const { gw, slack } = await start();
    gw.fake.respondWith(() => ({ text: "just one answer" }));
    slack.socket.acceptAcks = false;
    slack.pushEvent(messageEvent({ channel: dmOf(alice), user: alice, text: "did you get this?" }));
    await posted(slack, /just one answer/);
    slack.socket.acceptAcks = true;
    // Slack waits 3 s for the ack, then sends the envelope again with retry_attempt 1.
    await eventually(() => slack.socket.envelopes[0]!.ackedAfterMs !== undefined, "the redelivery acknowledged", 10_000);
    expect(slack.socket.envelopes[0]!.attempts).toBe(2);
    await eventually(() => gw.logs.some((l) => l.msg === "duplicate delivery dropped"), "the redelivery dropped");
    expect(gw.fake.requests).toHaveLength(1);
    expect(slack.api.sent().map((m) => m.text)).toEqual(["just one answer"]);
  });

  it("honours Retry-After: a rate-limited reply is sent again after Slack's wait", async () => {
    const { gw, slack } = await start();
    gw.fake.respondWith(() => ({ text: "after the wait" }));
    slack.api.failNext("chat.postMessage", { status: 429, retryAfter: 1 });
    slack.pushEvent(messageEvent({ channel: dmOf(alice), user: alice, text: "hello" }));
    await posted(slack, /after the wait/);
    const posts = slack.api.calls.filter((c) => c.method === "chat.postMessage");
    expect(posts.map((c) => c.status)).toEqual([429, 200]);
    expect(posts[1]!.at - posts[0]!.at).toBeGreaterThanOrEqual(1_000);
  });

  it("answers the app's slash command as the gateway command it carries", async () => {
    const { gw, slack } = await start();
    slack.socket.push("slash_commands", slashCommand("/switchboard", "help", alice, dmOf(alice)));
    const help = await posted(slack, /\/new/);
    expect(help.channel).toBe(dmOf(alice));
    expect(gw.fake.requests).toHaveLength(0);
  });

  it("answers every message where the access entry says so, in a thread under it, with no mention needed", async () => {
    const { gw, slack } = await start({}, { groups: [{ chat: `slack:${general}`, requireMention: false }] });
    gw.fake.respondWith(() => ({ text: "I answer everything here" }));
    const chatter = messageEvent({ channel: general, user: alice, text: "no mention at all" });
    slack.pushEvent(chatter);
    const reply = await posted(slack, /I answer everything here/);
    expect(reply).toMatchObject({ channel: general, threadTs: chatter.ts });
  });

  it("shows an image someone shared to a vision model, downloaded with the bot token", async () => {
    const started = await startFakeSlack();
    fake = started;
    t = await startTestGateway({
      channels: { slack: { botToken: started.botToken, appToken: started.appToken, apiUrl: started.apiUrl, streaming: "off" } },
      access: { dmPolicy: "open" },
      llm: { vision: true, model: "fake-vision-model" },
    });
    await eventually(() => started.socket.isConnected(), "the Socket Mode connection");
    t.fake.respondWith(() => ({ text: "a red dot" }));
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
    started.pushEvent(messageEvent({ channel: dmOf(alice), user: alice, text: "what is this?", files: [started.serveFile("dot.png", png, "image/png")] }));
    await posted(started, /a red dot/);
    expect(started.downloads).toEqual([{ path: "/files-pri/F0SHARED1/download/dot.png", authorized: true }]);
    const sent = JSON.stringify(t.fake.requests[0]!.body.messages);
    expect(sent).toContain(png.toString("base64"));
  });

  it("gives access the workspace as the space and user groups as roles", async () => {
    const { gw, slack } = await start({}, { groups: [{ space: "slack:T0FAKE0001", roles: [admins.id] }] });
    gw.fake.respondWith(() => ({ text: "for admins" }));
    slack.pushEvent(messageEvent({ channel: general, user: bob, text: mention("bob asks") }));
    slack.pushEvent(messageEvent({ channel: general, user: alice, text: mention("alice asks") }));
    await posted(slack, /for admins/);
    await eventually(() => gw.logs.some((l) => l.audit === "refused" && l.userId === bob.id), "bob refused");
    expect(gw.fake.requests).toHaveLength(1);
    expect(lastUserText(gw)).toContain("alice asks");
  });
});
