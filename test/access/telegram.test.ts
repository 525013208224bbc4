/** Access control through the fake Telegram Bot API: the real grammY adapter, router, agent and fake LLM. */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../src/config.js";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { startFakeTelegram, type FakeTelegram, type SentRecord } from "../fakes/telegram/server.js";
import { alice, directChat, groupChat, messageOf, text, type TgChat, type TgUser } from "../fakes/telegram/updates.js";
import { catalogOf, pairingCli, pairingCodeIn } from "./helpers.js";
import { closeInOrder } from "../helpers/close.js";

let t: TestGateway | undefined;
let tg: FakeTelegram | undefined;
afterEach(() => closeInOrder([t, tg]).then(() => (t = tg = undefined)));

const carol: TgUser = { id: 1003, is_bot: false, first_name: "Carol", username: "carol" };
const otherGroup: TgChat = { id: -1005555555555, type: "supergroup", title: "Strangers" };

async function start(access: ConfigInput["access"]): Promise<{ t: TestGateway; tg: FakeTelegram }> {
  tg = await startFakeTelegram();
  t = await startTestGateway({ channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1 } }, access });
  return { t, tg };
}

const replyTo = (fake: FakeTelegram, update: Record<string, unknown>): Promise<SentRecord> =>
  fake.waitFor(() => fake.sent.find((s) => s.replyTo === messageOf(update).message_id), 10_000);

/** Resolves once the gateway has logged a refusal in `chatId`. */
const refusalIn = (gw: TestGateway, chatId: number) =>
  tg!.waitFor(() => gw.logs.find((l) => l.msg === "message refused" && l.chatId === String(chatId)), 10_000);

describe("access control on Telegram", () => {
  it("pairs an unknown DM user: a code and nothing else, approval with the CLI, then answers", async () => {
    const { t, tg } = await start({ owners: [`telegram:${alice.id}`] });
    t.fake.respondWith(() => ({ text: "Nice to meet you, Carol." }));
    const hello = text(directChat(carol), "hi bot", { from: carol });
    tg.addUpdate(hello);
    const prompt = await replyTo(tg, hello);
    const code = pairingCodeIn(prompt.text);
    expect(prompt.chatId).toBe(String(carol.id));
    expect(t.fake.requests).toHaveLength(0);

    expect(await pairingCli(t.config.dataDir, "approve", "telegram", code)).toMatch(/^Approved Carol \(telegram:1003\)/);
    const again = text(directChat(carol), "hi again", { from: carol });
    tg.addUpdate(again);
    expect(await replyTo(tg, again)).toMatchObject({ text: "Nice to meet you, Carol." });
    expect(t.fake.requests).toHaveLength(1);
  });

  it("ignores a group that is not on the allowlist and answers in one that is", async () => {
    const { t, tg } = await start({ groups: [{ chat: `telegram:${groupChat.id}` }] });
    t.fake.respondWith(() => ({ text: "here" }));
    tg.addUpdate(text(otherGroup, "@switchboard_test_bot are you there?"));
    expect(await refusalIn(t, otherGroup.id)).toMatchObject({ channel: "telegram", userId: String(alice.id), reason: expect.stringContaining("not on the allowlist") });
    const allowed = text(groupChat, "@switchboard_test_bot are you there?");
    tg.addUpdate(allowed);
    await replyTo(tg, allowed);
    expect(tg.sent.filter((s) => s.chatId === String(otherGroup.id))).toEqual([]);
    expect(t.fake.requests).toHaveLength(1);
  });

  it("refuses a guest of an open group who asks for a script, and the model's call to it", async () => {
    const { t, tg } = await start({ groupPolicy: "open" });
    t.fake.enqueue(
      { toolCalls: [{ name: "run_skill_script", arguments: { skill_name: "date-helper", script: "scripts/now.sh" } }] },
      { text: "I'm not allowed to run scripts for you here." },
    );
    const ask = text(groupChat, "@switchboard_test_bot run the date-helper script", { from: carol });
    tg.addUpdate(ask);
    expect(await replyTo(tg, ask)).toMatchObject({ text: "I'm not allowed to run scripts for you here." });
    const [first, second] = t.fake.requests;
    expect(catalogOf(first!)).not.toContain("run_skill_script");
    expect(JSON.stringify(second!.body.messages?.filter((m) => m.role === "tool"))).toMatch(/The tool run_skill_script needs the \\"exec\\" permission/);
    expect(t.logs.some((l) => l.msg === "tool call" && l.tool === "run_skill_script")).toBe(false);
  });
});
