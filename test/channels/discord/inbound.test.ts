import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { messagePayload, startFakeDiscord, until, user, VOICE_MESSAGE_FLAG, type FakeDiscord, type MessageOptions } from "../../fakes/discord/index.js";
import { closeAll, startChannel, type StartedChannel } from "./helpers.js";

let fake: FakeDiscord;
let s: StartedChannel | undefined;
afterEach(async () => {
  await closeAll(s, fake);
  s = undefined;
});

const alice = user("alice");
const otherBot = user("helper-bot", { bot: true });

async function started(overrides: Parameters<typeof startChannel>[1] = {}): Promise<StartedChannel> {
  fake = await startFakeDiscord();
  s = await startChannel(fake, overrides);
  return s;
}

function inGeneral(extra: Partial<MessageOptions> = {}): Record<string, unknown> {
  return messagePayload({ channelId: fake.world.general.id, guildId: fake.world.guild.id, author: alice, ...extra });
}

/** Dispatches the payloads, then a marker message from a person, and waits for the marker: all earlier ones were processed. */
async function deliverAll(channel: StartedChannel, payloads: Array<Record<string, unknown>>): Promise<void> {
  for (const payload of payloads) fake.dispatch("MESSAGE_CREATE", payload);
  const marker = inGeneral({ content: "marker" });
  fake.dispatch("MESSAGE_CREATE", marker);
  await until(() => channel.received.some((m) => m.platformMessageId === marker.id), "the marker message");
  channel.received.splice(channel.received.findIndex((m) => m.platformMessageId === marker.id), 1);
}

describe("receiving from the Discord gateway", () => {
  it("asks for the guild, message, DM and message content intents", async () => {
    await started();
    const GUILDS = 1 << 0, GUILD_MESSAGES = 1 << 9, DIRECT_MESSAGES = 1 << 12, MESSAGE_CONTENT = 1 << 15;
    expect(fake.gateway.intents).toEqual([GUILDS | GUILD_MESSAGES | DIRECT_MESSAGES | MESSAGE_CONTENT]);
    expect(s!.channel.status()).toEqual({ connected: true });
  });

  it("hands over guild, thread and DM messages, using the channel and role names the gateway sent", async () => {
    const channel = await started();
    const dm = fake.dmChannelWith(alice);
    await deliverAll(channel, [
      inGeneral({ content: `<@${fake.bot.id}> hi from <#${fake.world.general.id}>`, mentions: [fake.bot] }),
      inGeneral({ channelId: fake.world.helpThread.id, content: `<@&${fake.world.botRole.id}> in the thread`, mentionRoles: [fake.world.botRole.id] }),
      messagePayload({ channelId: dm.id, author: alice, content: "privately" }),
    ]);
    expect(channel.received.map((m) => [m.text, m.chat.type, m.chat.id, m.chat.threadId, m.mentionsBot])).toEqual([
      ["hi from #general", "group", fake.world.general.id, undefined, true],
      ["in the thread", "group", fake.world.general.id, fake.world.helpThread.id, true],
      ["privately", "direct", dm.id, undefined, false],
    ]);
  });

  it("never hands over its own messages; other bots reach the router marked as bots", async () => {
    const channel = await started();
    await deliverAll(channel, [inGeneral({ author: fake.bot, content: "my own reply" }), inGeneral({ author: otherBot, content: "beep" })]);
    expect(channel.received.map((m) => [m.text, m.sender.isBot])).toEqual([["beep", true]]);
  });

  it("with allowBots, passes at most maxBotTurnsInARow bot messages per channel until a person writes", async () => {
    const channel = await started({ allowBots: true, maxBotTurnsInARow: 2 });
    const fromBot = (n: number) => inGeneral({ author: otherBot, content: `bot ${n}` });
    await deliverAll(channel, [fromBot(1), fromBot(2), fromBot(3), inGeneral({ content: "person" }), fromBot(4)]);
    expect(channel.received.map((m) => m.text)).toEqual(["bot 1", "bot 2", "person", "bot 4"]);
    expect(channel.logs.some((l) => /loop protection/.test(l.msg))).toBe(true);
  });

  it("reports withheld message content in the log and the status, with the fix", async () => {
    const channel = await started();
    await deliverAll(channel, [inGeneral(), inGeneral()]);
    const report = channel.logs.find((l) => l.level === 50 && /withholding/.test(l.msg));
    expect(report?.msg).toMatch(/Privileged Gateway Intents, turn on MESSAGE CONTENT INTENT/);
    expect(channel.channel.status()).toEqual({ connected: true, detail: report?.msg });
  });

  it("downloads an image and a voice message it received", async () => {
    const channel = await started();
    const png = Buffer.from("89504e470d0a1a0a", "hex");
    const ogg = Buffer.from("OggS fake opus");
    const attachment = (filename: string, bytes: Buffer, contentType: string, extra = {}) => {
      const url = fake.serveFile(filename, bytes, contentType);
      return { id: "123456789012345678", filename, size: bytes.length, url, proxy_url: url, content_type: contentType, ...extra };
    };
    await deliverAll(channel, [
      inGeneral({ attachments: [attachment("../photo.png", png, "image/png")] }),
      inGeneral({ flags: VOICE_MESSAGE_FLAG, attachments: [attachment("voice-message.ogg", ogg, "audio/ogg", { duration_secs: 2.5 })] }),
    ]);
    const [image, voice] = channel.received.map((m) => m.attachments[0]!);
    expect([image?.kind, voice?.kind]).toEqual(["image", "voice"]);
    const into = await mkdtemp(join(tmpdir(), "sb-discord-in-"));
    const imagePath = await channel.channel.download(image!, into);
    const voicePath = await channel.channel.download(voice!, into);
    expect(await readFile(imagePath)).toEqual(png);
    expect(await readFile(voicePath)).toEqual(ogg);
    expect(imagePath.startsWith(into)).toBe(true);
    expect(basename(imagePath)).toMatch(/^[0-9a-f]{12}-\.\._photo\.png$/);
  });

  it("refuses downloads from other hosts, over the limit, or from expired links, saying why", async () => {
    const channel = await started({ maxDownloadMB: 0.001 });
    const into = await mkdtemp(join(tmpdir(), "sb-discord-in-"));
    const big = fake.serveFile("big.bin", Buffer.alloc(4096), "application/octet-stream");
    const download = (ref: string, size?: number) => channel.channel.download({ kind: "file", ref, name: "f", ...(size !== undefined ? { size } : {}) }, into);
    await expect(download("http://198.51.100.7/attachments/1/2/x.png")).rejects.toThrow("Refusing to download from http://198.51.100.7: not Discord's CDN");
    await expect(download("not a url")).rejects.toThrow("Not a Discord attachment URL");
    await expect(download(big, 4096)).rejects.toThrow(/larger than 0\.0 MiB, the download limit \(channels\.discord\.maxDownloadMB\)/);
    await expect(download(big)).rejects.toThrow(/larger than 0\.0 MiB/); // size unknown up front: counted while streaming
    await expect(download(`${fake.url}/attachments/1/2/gone.png`)).rejects.toThrow("download failed with HTTP 404 (the link expired or the message was deleted)");
  });
});
