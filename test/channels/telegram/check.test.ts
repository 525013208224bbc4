/** `switchboard doctor`'s Telegram check against the fake Bot API. */
import { afterEach, describe, expect, it } from "vitest";
import { checkTelegram } from "../../../src/channels/telegram/check.js";
import { configSchema } from "../../../src/config.js";
import { startFakeTelegram, type FakeTelegram } from "../../fakes/telegram/server.js";

let tg: FakeTelegram | undefined;
afterEach(async () => {
  await tg?.close();
  tg = undefined;
});

const configFor = (telegram: Record<string, unknown>) => configSchema.parse({ channels: { telegram } }).channels.telegram;

describe("checkTelegram", () => {
  it("shows the bot's username and that no webhook is set", async () => {
    tg = await startFakeTelegram();
    tg.addUpdate({ message: { message_id: 1 } });
    expect(await checkTelegram(configFor({ token: tg.token, apiRoot: `${tg.url}/` }))).toBe(
      "token valid for @switchboard_test_bot (id 123456); no webhook set, long polling; 1 update pending",
    );
  });

  it("shows the webhook and warns that polling would remove it", async () => {
    tg = await startFakeTelegram();
    tg.webhook = { url: "https://bot.example.test/hook" };
    expect(await checkTelegram(configFor({ token: tg.token, apiRoot: tg.url }))).toBe(
      "token valid for @switchboard_test_bot (id 123456); webhook https://bot.example.test/hook (start removes it to poll); 0 updates pending",
    );
    const webhookMode = configFor({ token: tg.token, apiRoot: tg.url, mode: "webhook", webhook: { url: "https://bot.example.test/hook" } });
    expect(await checkTelegram(webhookMode)).toContain("; webhook https://bot.example.test/hook; 0 updates pending");
  });

  it("fails saying what went wrong, without the token", async () => {
    tg = await startFakeTelegram();
    await expect(checkTelegram(configFor({ token: "1:wrong-token-value", apiRoot: tg.url }))).rejects.toThrow("Call to 'getMe' failed! (401: Unauthorized)");
    const url = tg.url;
    await tg.close();
    tg = undefined;
    const unreachable = checkTelegram(configFor({ token: "1:wrong-token-value", apiRoot: url }));
    // ECONNREFUSED, or ECONNRESET when grammY's keep-alive agent still held a socket to the closed server.
    await expect(unreachable).rejects.toThrow(/^Network request for 'getMe' failed! \(E[A-Z]+\)$/);
    await expect(unreachable).rejects.not.toThrow(/wrong-token-value/);
  });
});
