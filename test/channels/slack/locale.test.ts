/**
 * The language of the gateway's own words on Slack: each person's Slack locale (users.info with include_locale),
 * asked once and kept, through the whole gateway against the fake Slack.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../../src/config.js";
import { startTestGateway, type TestGateway } from "../../e2e/harness.js";
import { alice, bob, DEFAULT_SCOPES, dmOf, li, messageEvent, slashCommand, startFakeSlack, type BotMessage, type FakeSlack, type FakeUser } from "../../fakes/slack/index.js";
import { closeInOrder } from "../../helpers/close.js";
import { eventually } from "../../helpers/wait.js";
import en from "../../../src/infra/i18n/en.json" with { type: "json" };
import zhHans from "../../../src/infra/i18n/zh-Hans.json" with { type: "json" };

let fake: FakeSlack | undefined;
let t: TestGateway | undefined;
afterEach(() => closeInOrder([t, fake]).then(() => (t = fake = undefined)));

async function start(extra: ConfigInput = {}, scopes?: string[]): Promise<{ gw: TestGateway; slack: FakeSlack }> {
  const slack = await startFakeSlack(scopes ? { scopes } : {});
  fake = slack;
  t = await startTestGateway({
    ...extra,
    channels: { slack: { botToken: slack.botToken, appToken: slack.appToken, apiUrl: slack.apiUrl, streaming: "off" } },
    access: { dmPolicy: "open" },
  });
  await eventually(() => slack.socket.isConnected(), "the Socket Mode connection");
  return { gw: t, slack };
}

/** `person` types /help in their DM; resolves with the answer. */
async function help(slack: FakeSlack, person: FakeUser): Promise<BotMessage> {
  const before = slack.api.sent().length;
  slack.pushEvent(messageEvent({ channel: dmOf(person), user: person, text: "/help" }));
  return eventually(() => slack.api.sent().slice(before).find((m) => m.channel === dmOf(person)), `the help for ${person.name}`, 10_000);
}

const lookups = (slack: FakeSlack) => slack.api.calls.filter((c) => c.method === "users.info");

describe("Slack: each person's language", () => {
  it("answers /help in Chinese to a person whose Slack speaks Chinese and in English to one in English, asking Slack once each", async () => {
    const { slack } = await start();
    const chinese = await help(slack, li);
    expect(chinese.text).toContain(zhHans.help.footer);
    expect(chinese.text).toContain(zhHans.commands.help.summary);
    const english = await help(slack, alice);
    expect(english.text).toContain(en.help.footer);
    expect(english.text).not.toContain(zhHans.commands.help.summary);

    expect((await help(slack, li)).text).toContain(zhHans.help.footer);
    expect((await help(slack, alice)).text).toContain(en.help.footer);
    expect(lookups(slack)).toHaveLength(2);

    // The app's slash command carries the same person: the same language.
    const before = slack.api.sent().length;
    slack.socket.push("slash_commands", slashCommand("/switchboard", "help", li, dmOf(li)));
    const slash = await eventually(() => slack.api.sent().slice(before).find((m) => m.channel === dmOf(li)), "the slash command's help");
    expect(slash.text).toContain(zhHans.help.footer);
  });

  it("a person with no Slack locale gets i18n.default, and /language outranks the locale", async () => {
    const { slack } = await start({ i18n: { default: "zh-Hans" } });
    expect((await help(slack, bob)).text).toContain(zhHans.help.footer);
    expect((await help(slack, alice)).text).toContain(en.help.footer);

    slack.pushEvent(messageEvent({ channel: dmOf(li), user: li, text: "/language en" }));
    await eventually(() => slack.api.sent().find((m) => m.channel === dmOf(li)), "the language's confirmation");
    expect((await help(slack, li)).text).toContain(en.help.footer);
  });

  it("without the users:read scope everyone gets the default language, said once in the log, and Slack is not asked on every message", async () => {
    const { gw, slack } = await start({}, DEFAULT_SCOPES.filter((scope) => scope !== "users:read"));
    expect((await help(slack, li)).text).toContain(en.help.footer);
    expect((await help(slack, li)).text).toContain(en.help.footer);
    expect((await help(slack, alice)).text).toContain(en.help.footer);
    expect(lookups(slack).map((c) => c.error)).toEqual(["missing_scope", "missing_scope"]);
    expect(gw.logs.filter((r) => /could not read a Slack user's language/.test(r.msg))).toHaveLength(1);
  });
});
