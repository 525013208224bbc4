import { afterEach, describe, expect, it } from "vitest";
import { discordChannel } from "../../../src/channels/discord/index.js";
import { configSchema } from "../../../src/config.js";
import { startFakeDiscord, type FakeDiscord } from "../../fakes/discord/index.js";

let fake: FakeDiscord;
afterEach(() => fake.close());

function check(token = fake.token): Promise<string> {
  const config = configSchema.parse({ channels: { discord: { token, apiUrl: fake.apiUrl } } });
  return discordChannel.check(config.channels.discord, config);
}

describe("switchboard doctor for Discord", () => {
  it("reports the bot, the message content intent and the servers", async () => {
    fake = await startFakeDiscord();
    expect(await check()).toBe(`token valid for switchboard-bot (id ${fake.bot.id}); MESSAGE CONTENT intent on; in 1 server: Test Server`);
  });

  it("fails when the application's MESSAGE CONTENT intent is off, saying where to turn it on", async () => {
    fake = await startFakeDiscord({ applicationFlags: 0 });
    await expect(check()).rejects.toThrow(/but the MESSAGE CONTENT intent is off: .*Privileged Gateway Intents, turn on MESSAGE CONTENT INTENT/);
  });

  it("fails when the bot is in no server, with an invite link", async () => {
    fake = await startFakeDiscord();
    fake.guilds.length = 0;
    await expect(check()).rejects.toThrow(
      `but the bot is in no server yet: invite it with https://discord.com/oauth2/authorize?client_id=${fake.bot.id}&scope=bot&permissions=274878008320`,
    );
  });

  it("fails on a rejected token, and the fix names the setting", async () => {
    fake = await startFakeDiscord();
    await expect(check("not-the-token")).rejects.toThrow(/^HTTP 401 from 127\.0\.0\.1:\d+$/);
    expect(discordChannel.fix).toMatch(/DISCORD_BOT_TOKEN/);
  });
});
