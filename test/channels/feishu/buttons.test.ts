/** Card buttons and card.action.trigger callbacks, through the whole gateway and the fake Feishu. */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../../src/config.js";
import { startTestGateway, type TestGateway } from "../../e2e/harness.js";
import { cardButtons } from "../../fakes/feishu/content-rules.js";
import { cardActionEvent, textEvent } from "../../fakes/feishu/events.js";
import { startFakeFeishu, type BotSent, type FakeFeishu } from "../../fakes/feishu/index.js";
import { eventually } from "../../helpers/wait.js";
import { closeInOrder } from "../../helpers/close.js";
import { schedulerFeature } from "../../../src/features/scheduler.js";

let gw: TestGateway | undefined;
let feishu: FakeFeishu | undefined;
afterEach(() => closeInOrder([gw, feishu]).then(() => (gw = feishu = undefined)));

const OWNER = "ou_owner";

async function start(feishuSettings: Record<string, unknown> = {}, overrides: ConfigInput = {}): Promise<TestGateway> {
  feishu = await startFakeFeishu();
  gw = await startTestGateway({
    ...overrides,
    access: { owners: [`feishu:${OWNER}`], groupPolicy: "open", requireMention: false, ...overrides.access },
    channels: {
      web: { enabled: false },
      feishu: { appId: feishu.appId, appSecret: feishu.appSecret, domain: feishu.url, ...feishuSettings },
    },
  });
  return gw;
}

const sentMatching = async (pattern: RegExp): Promise<BotSent> =>
  eventually(() => feishu!.api.sent.find((m) => pattern.test(JSON.stringify(m.content))), `a message matching ${pattern}`, 10_000);

/** The answer Feishu gets in the frame's acknowledgment (base64 JSON in `data`). */
const answerOf = (ack: unknown): Record<string, unknown> => {
  const data = (ack as { data?: string }).data;
  return data === undefined ? {} : (JSON.parse(Buffer.from(data, "base64").toString("utf8")) as Record<string, unknown>);
};

const press = (message: BotSent, label: string, by: string, chatId: string) => {
  const button = cardButtons(message.content).find((b) => b.label === label);
  if (!button) throw new Error(`no button ${label}`);
  return cardActionEvent({ operatorOpenId: by, messageId: message.messageId, chatId, value: button.value });
};

describe("Feishu card buttons", () => {
  it("the owner approves a pairing request from the card; another user's press only gets a toast", async () => {
    const t = await start();
    await feishu!.pushSocket(textEvent("hello", { chatId: "oc_dm_stranger", senderOpenId: "ou_stranger" }));
    const notice = await sentMatching(/asks to chat with me\. Pairing code/);
    expect(notice).toMatchObject({ chatId: OWNER, msgType: "interactive" });
    expect(cardButtons(notice.content).map((b) => b.label)).toEqual(["Approve", "Deny"]);

    const refused = answerOf(await feishu!.pushSocket(press(notice, "Approve", "ou_mallory", "oc_dm_owner")));
    expect(refused).toEqual({ toast: { type: "info", content: "This button is not for you." } });

    const approved = answerOf(await feishu!.pushSocket(press(notice, "Approve", OWNER, "oc_dm_owner")));
    expect(approved.toast).toBeUndefined();
    const card = (approved.card as { data: Record<string, unknown> }).data;
    expect(cardButtons(card)).toEqual([]);
    expect(JSON.stringify(card)).toContain("asks to chat with me");
    const confirmation = await sentMatching(/Approved ou_stranger|Approved .*feishu:ou_stranger/);
    expect(confirmation.replyTo).toBe(notice.messageId);

    t.fake.enqueue({ text: "Welcome in" });
    await feishu!.pushSocket(textEvent("and now?", { chatId: "oc_dm_stranger", senderOpenId: "ou_stranger" }));
    await sentMatching(/Welcome in/);

    const again = answerOf(await feishu!.pushSocket(press(notice, "Approve", OWNER, "oc_dm_owner")));
    expect(again.toast).toEqual({ type: "info", content: "Already done." });
    expect(feishu!.api.sent.filter((m) => /Approved/.test(JSON.stringify(m.content)))).toHaveLength(1);
  });

  it("/tasks in a group over the webhook: Cancel is the asker's alone", async () => {
    const t = await start({ mode: "webhook", webhook: { verificationToken: "verify-token" } }, { access: { owners: [`feishu:${OWNER}`], groupPolicy: "open", requireMention: false, dmPolicy: "open" } });
    const url = `${t.url}/feishu/events`;
    await feishu!.pushWebhook(url, textEvent("/remind in 10m stretch", { chatId: "oc_team", chatType: "group", senderOpenId: "ou_bob" }));
    await sentMatching(/Reminder \\"stretch\\"/);
    await feishu!.pushWebhook(url, textEvent("/tasks", { chatId: "oc_team", chatType: "group", senderOpenId: "ou_bob" }));
    const list = await sentMatching(/Your tasks \(1\)/);
    const live = () => t.gateway.feature(schedulerFeature)!.scheduler!.list({ kind: "operator" }, { everyone: true });

    const other = await feishu!.pushWebhook(url, press(list, 'Cancel "stretch"', "ou_carol", "oc_team"));
    expect(other).toMatchObject({ status: 200, body: { toast: { content: "This button is not for you." } } });
    expect(await live()).toHaveLength(1);

    const mine = await feishu!.pushWebhook(url, press(list, 'Cancel "stretch"', "ou_bob", "oc_team"));
    expect(mine.status).toBe(200);
    await sentMatching(/Cancelled \\"stretch\\"/);
    expect(await live()).toHaveLength(0);
  });
});
