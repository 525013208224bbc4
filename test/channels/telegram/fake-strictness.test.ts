/**
 * The fake Telegram refuses what Telegram refuses (and a parameter Telegram would silently drop), so a gateway bug
 * shows in a test instead of on a real chat.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeTelegram, type FakeTelegram } from "../../fakes/telegram/server.js";

let fake: FakeTelegram;
beforeAll(async () => {
  fake = await startFakeTelegram();
});
afterAll(() => fake.close());

async function call(method: string, params: Record<string, unknown>): Promise<{ ok: boolean; description?: string; result?: { message_id?: number } }> {
  const response = await fetch(`${fake.url}/bot${fake.token}/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(params),
  });
  return (await response.json()) as { ok: boolean; description?: string };
}

describe("the fake Telegram", () => {
  it("refuses a parameter the method does not define", async () => {
    expect(await call("sendMessage", { chat_id: 1, text: "hi", parse_mod: "HTML" })).toMatchObject({ ok: false, description: expect.stringContaining('unknown parameter "parse_mod"') });
    expect(await call("sendMessage", { chat_id: 1, text: "hi", parse_mode: "HTML", link_preview_options: { is_disabled: true } })).toMatchObject({ ok: true });
  });

  it("answers 'message is not modified' to an edit that changes nothing a reader sees, and applies one that changes the keyboard", async () => {
    const sent = await call("sendMessage", { chat_id: 2, text: "<b>bold</b> &lt;x&gt;", parse_mode: "HTML" });
    const id = sent.result!.message_id;
    expect(await call("editMessageText", { chat_id: 2, message_id: id, text: "<strong>bold</strong> &#60;x&#x3e;", parse_mode: "HTML" })).toMatchObject({
      ok: false,
      description: expect.stringMatching(/^Bad Request: message is not modified/),
    });
    const keyboard = { inline_keyboard: [[{ text: "Go", callback_data: "go" }]] };
    expect(await call("editMessageText", { chat_id: 2, message_id: id, text: "<b>bold</b> &lt;x&gt;", parse_mode: "HTML", reply_markup: keyboard })).toMatchObject({ ok: true });
    expect(await call("editMessageText", { chat_id: 2, message_id: id, text: "<i>bold</i> &lt;x&gt;", parse_mode: "HTML" })).toMatchObject({ ok: true });
  });

  it("refuses callback_data over 64 bytes and measures captions after parsing their entities", async () => {
    const button = (data: string) => ({ chat_id: 3, text: "pick", reply_markup: { inline_keyboard: [[{ text: "x", callback_data: data }]] } });
    expect(await call("sendMessage", button("é".repeat(32)))).toMatchObject({ ok: true });
    expect(await call("sendMessage", button("é".repeat(33)))).toMatchObject({ ok: false, description: "Bad Request: BUTTON_DATA_INVALID" });
    const form = (caption: string) => {
      const body = new FormData();
      body.set("chat_id", "3");
      body.set("caption", caption);
      body.set("parse_mode", "HTML");
      body.set("photo", "attach://file");
      body.set("file", new Blob([Buffer.from("png")]), "a.png");
      return fetch(`${fake.url}/bot${fake.token}/sendPhoto`, { method: "POST", body }).then((r) => r.json() as Promise<{ ok: boolean; description?: string }>);
    };
    expect(await form(`<b>${"c".repeat(1024)}</b>`)).toMatchObject({ ok: true });
    expect(await form(`<b>${"c".repeat(1025)}</b>`)).toMatchObject({ ok: false, description: "Bad Request: message caption is too long" });
  });

  it("refuses a command list with a language_code other than two ISO 639-1 letters or a description outside 1-256 characters", async () => {
    const commands = (description: string) => [{ command: "help", description }];
    const scope = { type: "all_private_chats" };
    expect(await call("setMyCommands", { commands: commands("显示本帮助"), scope, language_code: "zh" })).toMatchObject({ ok: true });
    expect(fake.commandMenus.get("all_private_chats/zh")).toEqual([{ command: "help", description: "显示本帮助" }]);
    for (const languageCode of ["zh-Hans", "zh-CN", "ZH", "chi"]) {
      expect(await call("setMyCommands", { commands: commands("显示本帮助"), scope, language_code: languageCode })).toMatchObject({ ok: false, description: "Bad Request: invalid language code specified" });
    }
    expect(await call("setMyCommands", { commands: commands("x".repeat(256)), scope })).toMatchObject({ ok: true });
    expect(await call("setMyCommands", { commands: commands("x".repeat(257)), scope })).toMatchObject({ ok: false, description: "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID" });
    expect(await call("setMyCommands", { commands: commands(""), scope })).toMatchObject({ ok: false, description: "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID" });
  });
});
