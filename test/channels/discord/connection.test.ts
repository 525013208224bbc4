import { memoryStore } from "../../scheduler/helpers.js";
import { afterEach, describe, expect, it } from "vitest";
import { DiscordChannel } from "../../../src/channels/discord/channel.js";
import { captureLog } from "../../helpers/captured-log.js";
import { messagePayload, startFakeDiscord, until, user, type FakeDiscord } from "../../fakes/discord/index.js";
import { closeAll, createChannel, discordConfig, startChannel, type StartedChannel } from "./helpers.js";

let fake: FakeDiscord;
let s: StartedChannel | undefined;
afterEach(async () => {
  await closeAll(s, fake);
  s = undefined;
});

const handler = async () => "answered" as const;

describe("connecting to the Discord gateway", () => {
  it("refuses to start on close 4014 (disallowed intents) and says how to turn the intent on", async () => {
    fake = await startFakeDiscord();
    fake.closeNextIdentify(4014);
    s = createChannel(fake);
    const error = await s.channel.start(handler).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(
      "Discord refused the MESSAGE CONTENT intent (gateway close 4014, disallowed intents): open the Discord Developer Portal > Applications > your bot > Bot > Privileged Gateway Intents, turn on MESSAGE CONTENT INTENT, save, and restart Switchboard",
    );
    expect(s.channel.status()).toEqual({ connected: false, detail: (error as Error).message });
    expect(fake.gateway.identifies).toBe(1);
  });

  it("reports 4014 arriving on a live connection in the log and the status", async () => {
    fake = await startFakeDiscord();
    s = await startChannel(fake);
    fake.closeConnection(4014);
    await until(() => !s!.channel.status().connected, "the channel to report the disconnect");
    expect(s.channel.status().detail).toMatch(/gateway close 4014.*MESSAGE CONTENT INTENT/);
    expect(s.logs.filter((l) => l.level === 50 && /4014/.test(l.msg))).toHaveLength(1);
  });

  it("refuses to start with a token Discord rejects, and logs nothing of the token", async () => {
    fake = await startFakeDiscord();
    // No secrets to redact: the channel itself must not write the token anywhere.
    const { log, logs } = captureLog([]);
    const channel = new DiscordChannel({ config: discordConfig(fake, { token: "wrong-token-value" }), log, store: memoryStore() });
    await expect(channel.start(handler)).rejects.toThrow(/^Discord rejected the bot token: reset the token .* DISCORD_BOT_TOKEN$/);
    expect(channel.status()).toMatchObject({ connected: false, detail: expect.stringMatching(/^Discord rejected the bot token/) });
    expect(JSON.stringify(logs)).not.toContain("wrong-token-value");
  });

  it("starts during an outage and connects in the background once Discord answers", async () => {
    fake = await startFakeDiscord();
    // @discordjs/rest retries a 5xx three times: four failures make the first attempt fail.
    for (let i = 0; i < 4; i += 1) fake.failNext({ method: "GET", path: /^\/gateway\/bot$/, status: 500 });
    s = await startChannel(fake);
    expect(s.channel.status()).toMatchObject({ connected: false, detail: expect.stringMatching(/^reconnecting after: /) });
    await until(() => s!.channel.status().connected, "the background reconnect");
    fake.dispatch("MESSAGE_CREATE", messagePayload({ channelId: fake.world.general.id, guildId: fake.world.guild.id, author: user("alice"), content: "hi" }));
    await until(() => s!.received.length === 1, "the message after the reconnect");
    expect(s.logs.some((l) => l.level === 40 && /retrying/.test(l.msg))).toBe(true);
  });
});
