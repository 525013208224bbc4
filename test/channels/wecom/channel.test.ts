/** The WeCom channel on its own against the fake WeCom: app group chats, buttons and presses, refusals. */
import { afterEach, describe, expect, it } from "vitest";
import { WecomChannel } from "../../../src/channels/wecom/channel.js";
import { checkWecom } from "../../../src/channels/wecom/check.js";
import { completeSettings, wecomConfigSchema } from "../../../src/channels/wecom/config.js";
import type { ButtonPress } from "../../../src/core/types.js";
import { SendError } from "../../../src/core/send-error.js";
import { HttpServer } from "../../../src/infra/http/server.js";
import { messageXml, startFakeWecom, type FakeWecom } from "../../fakes/wecom/index.js";
import { closeInOrder } from "../../helpers/close.js";
import { eventually } from "../../helpers/wait.js";
import { memoryStore, silentLog } from "../../scheduler/helpers.js";

let wecom: FakeWecom | undefined;
let channel: WecomChannel | undefined;
let http: HttpServer | undefined;
afterEach(() => closeInOrder([channel && { close: () => channel!.stop() }, http && { close: () => http!.stop() }, wecom]).then(() => (wecom = channel = http = undefined)));

async function startChannel(settings: Record<string, unknown> = {}): Promise<{ channel: WecomChannel; callback: string; presses: ButtonPress[] }> {
  wecom = await startFakeWecom();
  http = new HttpServer({ host: "127.0.0.1", port: 0, token: null, log: silentLog });
  channel = new WecomChannel({ settings: completeSettings(wecomConfigSchema.parse({ ...wecom.settings(), ...settings })), store: memoryStore(), log: silentLog, http });
  const presses: ButtonPress[] = [];
  await channel.start(async () => "answered", async (press) => {
    presses.push(press);
    await press.answer({ notice: "Done", clearButtons: true });
  });
  const { url } = await http.start();
  return { channel, callback: `${url}/wecom/callback`, presses };
}

describe("the WeCom channel", () => {
  it("sends to an app group chat through the appchat API, without buttons there", async () => {
    const { channel } = await startChannel();
    wecom!.api.appChats.add("wrgroupchat01");
    const sent = await channel.sendText({ channel: "wecom", chatId: "appchat:wrgroupchat01" }, "team reminder", { buttons: [[{ label: "OK", actionId: "a1" }]] });
    expect(sent).toHaveLength(1);
    expect(wecom!.api.sent).toEqual([expect.objectContaining({ via: "appchat", to: "wrgroupchat01", msgtype: "markdown", text: "team reminder" })]);
    const unknown = await channel.sendText({ channel: "wecom", chatId: "appchat:nope" }, "lost").catch((err: unknown) => err);
    expect(unknown).toBeInstanceOf(SendError);
    expect((unknown as SendError).kind).toBe("rejected");
  });

  it("sends buttons as a template card and hands a press over once, answering it by updating the card", async () => {
    const { channel, callback, presses } = await startChannel();
    await channel.sendText({ channel: "wecom", chatId: "zhangsan" }, "Deploy now?\nThe build is green.", {
      buttons: [[{ label: "Deploy", actionId: "act_deploy", style: "primary" }, { label: "Cancel", actionId: "act_cancel", style: "danger" }]],
    });
    const [card] = wecom!.api.sent;
    const template = card!.body.template_card as { task_id: string; main_title: { title: string }; button_list: unknown[] };
    expect(template.main_title.title).toBe("Deploy now?");
    expect(template.button_list).toEqual([{ text: "Deploy", key: "act_deploy", style: 1 }, { text: "Cancel", key: "act_cancel", style: 3 }]);
    const event = messageXml(wecom!.keys, "zhangsan", "event", { Event: "template_card_event", EventKey: "act_deploy", TaskId: template.task_id, CardType: "button_interaction", ResponseCode: "rc-1" });
    await wecom!.push(callback, event);
    await wecom!.push(callback, event);
    await eventually(() => wecom!.api.cardUpdates.length === 1, "the card updated");
    expect(presses.map((p) => [p.actionId, p.chat.id])).toEqual([["act_deploy", "zhangsan"]]);
    expect(wecom!.api.cardUpdates[0]).toMatchObject({ response_code: "rc-1", button: { replace_name: "Done" } });
  });

  it("classifies failures: rate limits, WeCom being busy, a refused message", async () => {
    const { channel } = await startChannel({ replyFormat: "text" });
    const to = { channel: "wecom", chatId: "zhangsan" };
    const kindOf = (err: unknown) => (err as SendError).kind;
    wecom!.api.fail(/message\/send/, 1, { errcode: 45009 });
    expect(kindOf(await channel.sendText(to, "x").catch((e: unknown) => e))).toBe("rate_limited");
    wecom!.api.fail(/message\/send/, 1, { errcode: -1 });
    expect(kindOf(await channel.sendText(to, "x").catch((e: unknown) => e))).toBe("unavailable");
    wecom!.api.fail(/message\/send/, 1, { status: 502 });
    expect(kindOf(await channel.sendText(to, "x").catch((e: unknown) => e))).toBe("unavailable");
    wecom!.api.fail(/message\/send/, 1, { errcode: 40031 });
    expect(kindOf(await channel.sendText(to, "x").catch((e: unknown) => e))).toBe("rejected");
  });

  it("fetches a new token when WeCom says the old one expired (42001), and sends once", async () => {
    const { channel } = await startChannel({ replyFormat: "text" });
    const to = { channel: "wecom", chatId: "zhangsan" };
    await channel.sendText(to, "before expiry");
    expect(wecom!.api.tokensIssued).toBe(1);
    wecom!.api.expireTokens();
    await channel.sendText(to, "after expiry");
    expect(wecom!.api.tokensIssued).toBe(2);
    expect(wecom!.api.sent.map((m) => m.text)).toEqual(["before expiry", "after expiry"]);
  });

  it("refuses to start sending with a wrong secret, saying which call failed", async () => {
    const { channel } = await startChannel({ corpSecret: "wrong" });
    const failure = (await channel.sendText({ channel: "wecom", chatId: "zhangsan" }, "x").catch((e: unknown) => e)) as SendError;
    expect(failure.kind).toBe("rejected");
    expect(failure.message).toContain("/cgi-bin/gettoken: WeCom error 40001");
  });

  it("doctor: reports the application with good credentials and names the failing call with bad ones", async () => {
    wecom = await startFakeWecom();
    const config = wecomConfigSchema.parse(wecom.settings());
    expect(await checkWecom(config)).toContain('application "Switchboard" (1000002)');
    await expect(checkWecom({ ...config, corpSecret: "wrong" })).rejects.toThrow("WeCom error 40001");
    await expect(checkWecom({ ...config, agentId: "42" })).rejects.toThrow("WeCom error 40056");
  });
});
