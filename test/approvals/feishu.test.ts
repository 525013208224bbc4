/** Approvals on Feishu through the whole gateway: the request as a card with buttons, over the long connection. */
import { afterEach, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { cardButtons } from "../fakes/feishu/content-rules.js";
import { cardActionEvent, textEvent } from "../fakes/feishu/events.js";
import { startFakeFeishu, type BotSent, type FakeFeishu } from "../fakes/feishu/index.js";
import { toolResultsOf } from "../fakes/openai-server.js";
import { eventually } from "../helpers/wait.js";
import { closeInOrder } from "../helpers/close.js";
import { MEMBERS_WRITE_IN_GROUPS, WRITE_NOTE } from "./fixtures.js";

let gw: TestGateway | undefined;
let feishu: FakeFeishu | undefined;
afterEach(() => closeInOrder([gw, feishu]).then(() => (gw = feishu = undefined)));

const OWNER = "ou_owner";
const GROUP = "oc_team";

async function start(): Promise<{ t: TestGateway; feishu: FakeFeishu }> {
  feishu = await startFakeFeishu();
  gw = await startTestGateway({
    approvals: { mode: "always", tools: ["write_file"] },
    access: {
      owners: [`feishu:${OWNER}`],
      allowFrom: ["feishu:ou_bob", "feishu:ou_carol"],
      groups: [{ chat: `feishu:${GROUP}`, requireMention: false }],
      permissions: MEMBERS_WRITE_IN_GROUPS,
    },
    channels: { web: { enabled: false }, feishu: { appId: feishu.appId, appSecret: feishu.appSecret, domain: feishu.url } },
  });
  return { t: gw, feishu };
}

const sentMatching = async (pattern: RegExp): Promise<BotSent> =>
  eventually(() => feishu!.api.sent.find((m) => pattern.test(JSON.stringify(m.content))), `a message matching ${pattern}`, 10_000);

const answerOf = (ack: unknown): Record<string, unknown> => {
  const data = (ack as { data?: string }).data;
  return data === undefined ? {} : (JSON.parse(Buffer.from(data, "base64").toString("utf8")) as Record<string, unknown>);
};

const press = (message: BotSent, label: string, by: string) => {
  const button = cardButtons(message.content).find((b) => b.label === label);
  if (!button) throw new Error(`no button ${label}`);
  return cardActionEvent({ operatorOpenId: by, messageId: message.messageId, chatId: GROUP, value: button.value });
};

async function askToWrite(t: TestGateway, reply: string): Promise<BotSent> {
  t.fake.enqueue({ toolCalls: [WRITE_NOTE] }, { text: reply });
  await feishu!.pushSocket(textEvent("write a note", { chatId: GROUP, chatType: "group", senderOpenId: "ou_bob" }));
  return sentMatching(/Approval needed/);
}

describe("approvals on Feishu", () => {
  it("the request is a card: another member's press gets a toast, the asker's Approve runs the tool", async () => {
    const { t, feishu } = await start();
    const card = await askToWrite(t, "Written.");
    expect(card.msgType).toBe("interactive");
    expect(cardButtons(card.content).map((b) => b.label)).toEqual(["Approve once", "Deny", "Always for this tool in this chat"]);

    const refused = answerOf(await feishu.pushSocket(press(card, "Approve once", "ou_carol")));
    expect(refused).toEqual({ toast: { type: "info", content: "This button is not for you." } });
    expect(t.fake.requests).toHaveLength(1);

    await feishu.pushSocket(press(card, "Approve once", "ou_bob"));
    await sentMatching(/Written\./);
    expect(toolResultsOf(t.fake.requests[1]!)[0]?.content).toMatchObject({ bytesWritten: 5 });
  });

  it("Deny: the tool does not run", async () => {
    const { t, feishu } = await start();
    const card = await askToWrite(t, "Not written.");
    await feishu.pushSocket(press(card, "Deny", "ou_bob"));
    await sentMatching(/Not written\./);
    expect(toolResultsOf(t.fake.requests[1]!)[0]?.content).toMatchObject({ code: "denied" });
  });
});
