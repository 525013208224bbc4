/**
 * The language of the gateway's own words on Feishu, whose events carry no user language: the configured default
 * (i18n.default) for everyone, and /language for each person, through the whole gateway against the fake Feishu.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../../src/config.js";
import { startTestGateway, type TestGateway } from "../../e2e/harness.js";
import { textEvent } from "../../fakes/feishu/events.js";
import { startFakeFeishu, type FakeFeishu } from "../../fakes/feishu/index.js";
import { closeInOrder } from "../../helpers/close.js";
import en from "../../../src/infra/i18n/en.json" with { type: "json" };
import zhHans from "../../../src/infra/i18n/zh-Hans.json" with { type: "json" };

let gw: TestGateway | undefined;
let feishu: FakeFeishu | undefined;
afterEach(() => closeInOrder([gw, feishu]).then(() => (gw = feishu = undefined)));

async function start(overrides: ConfigInput): Promise<FakeFeishu> {
  const fake = await startFakeFeishu();
  feishu = fake;
  gw = await startTestGateway({
    ...overrides,
    access: { dmPolicy: "open" },
    channels: { web: { enabled: false }, feishu: { appId: fake.appId, appSecret: fake.appSecret, domain: fake.url } },
  });
  return fake;
}

/** `openId` sends `text` in their DM; resolves with the text of the answer. */
async function say(fake: FakeFeishu, openId: string, text: string): Promise<string> {
  const count = fake.api.sent.length + 1;
  expect(await fake.pushSocket(textEvent(text, { chatId: `oc_dm_${openId}`, senderOpenId: openId }))).toEqual({ code: 200 });
  const sent = await fake.waitForSent(count);
  return JSON.stringify(sent[count - 1]!.content);
}

describe("Feishu: each person's language", () => {
  it("answers /help in i18n.default (Chinese) and in English to a person who chose it with /language", async () => {
    const fake = await start({ i18n: { default: "zh-Hans" } });
    const chinese = await say(fake, "ou_wang", "/help");
    expect(chinese).toContain(zhHans.help.footer);
    expect(chinese).toContain(zhHans.commands.help.summary);

    expect(await say(fake, "ou_anna", "/language en")).toContain(en.language.set);
    const english = await say(fake, "ou_anna", "/help");
    expect(english).toContain(en.help.footer);
    expect(english).toContain(en.commands.help.summary);
    // One person's choice is theirs only.
    expect(await say(fake, "ou_wang", "/help")).toContain(zhHans.help.footer);
  });

  it("answers /help in English by default", async () => {
    const fake = await start({});
    expect(await say(fake, "ou_wang", "/help")).toContain(en.help.footer);
  });
});
