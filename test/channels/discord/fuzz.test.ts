/**
 * 1,000 mutated MESSAGE_CREATE payloads through the real gateway socket and discord.js: nothing crashes, no
 * promise is left rejected, every payload is either handed over as a well-formed message or logged as skipped,
 * and the channel still hands over the next valid message.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { CHANNEL_NAMES } from "../../helpers/channel-names.js";
import { messagePayload, startFakeDiscord, until, user, type FakeDiscord } from "../../fakes/discord/index.js";
import { closeAll, startChannel, type StartedChannel } from "./helpers.js";
import { seededRandom } from "../../helpers/seeded-random.js";

const COUNT = 1_000;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

let fake: FakeDiscord;
let s: StartedChannel | undefined;
const failures: unknown[] = [];
const record = (err: unknown) => failures.push(err);

beforeEach(() => {
  process.on("unhandledRejection", record);
  process.on("uncaughtException", record);
});
afterEach(async () => {
  process.off("unhandledRejection", record);
  process.off("uncaughtException", record);
  await closeAll(s, fake);
});

it(`survives ${COUNT} mutated MESSAGE_CREATE payloads`, async () => {
  fake = await startFakeDiscord();
  s = await startChannel(fake);
  const next = seededRandom(20_240_611);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const { world } = fake;
  const ids = [world.general.id, world.helpThread.id, world.forumPost.id, world.guild.id, world.admins.id, world.botRole.id, fake.bot.id, "1", "abc", ""];
  const strange: Json[] = [
    null, 0, -1, 1.5, 1e308, true, "", "x".repeat(10_000), "<@", `<@${fake.bot.id}`, `<@&${pick(ids)}>`, `<#${pick(ids)}>`,
    "😀\u0000\u202e", "<a:x:1>", "</:1>", [], [null], {}, { id: 5 }, "2024-99-99T99:99:99Z",
  ];

  /** One change at a random place: a field removed, or replaced by a strange value or an id. */
  const mutateOnce = (value: Json): Json => {
    if (value === null || typeof value !== "object") return pick(strange);
    const entries: Array<[string, Json]> = Array.isArray(value) ? value.map((item, i) => [String(i), item]) : Object.entries(value);
    if (entries.length === 0) return pick(strange);
    const index = Math.floor(next() * entries.length);
    const [key, inner] = entries[index]!;
    const roll = next();
    if (roll < 0.25) entries.splice(index, 1);
    else entries[index] = [key, roll < 0.5 ? pick(strange) : roll < 0.6 ? pick(ids) : mutateOnce(inner)];
    return Array.isArray(value) ? entries.map(([, item]) => item) : Object.fromEntries(entries);
  };
  const mutate = (value: Json): Json => {
    let mutated = value;
    for (let n = Math.floor(next() * 3); n >= 0; n -= 1) mutated = mutateOnce(mutated);
    return mutated;
  };
  const base = (i: number): Json => {
    const url = `${fake.url}/attachments/1/2/f${i}.png`;
    return messagePayload({
      channelId: pick([world.general.id, world.helpThread.id, world.forumPost.id, "555555555555555555"]),
      ...(next() < 0.8 ? { guildId: world.guild.id } : {}),
      author: user(`user${i}`),
      content: `<@${fake.bot.id}> <@&${world.botRole.id}> <#${world.general.id}> message ${i}`,
      mentions: [fake.bot],
      mentionRoles: [world.botRole.id],
      attachments: [{ id: "123456789012345678", filename: `f${i}.png`, size: 10, url, proxy_url: url, content_type: "image/png" }],
      replyTo: { id: "777777777777777777", author: fake.bot, content: "earlier", mentions: [] },
    }) as Json;
  };

  for (let i = 0; i < COUNT; i += 1) fake.dispatch("MESSAGE_CREATE", next() < 0.05 ? pick(strange) : mutate(base(i)));
  const marker = messagePayload({ channelId: world.general.id, guildId: world.guild.id, author: user("last"), content: "still alive" });
  fake.dispatch("MESSAGE_CREATE", marker);
  await until(() => s!.received.some((m) => m.platformMessageId === marker.id), "the valid message after the mutated ones", 30_000);

  expect(failures).toEqual([]);
  // discord.js itself threw on some payloads: the containment was exercised, not just our validation.
  expect(s.logs.some((l) => l.msg === "discord.js could not process a gateway event; skipped")).toBe(true);
  const handedOver = s.received.filter((m) => m.platformMessageId !== marker.id);
  for (const m of handedOver) {
    expect(m.id).toBe(`discord:${m.platformMessageId}`);
    expect(CHANNEL_NAMES).toContain(m.channel);
    expect(["direct", "group"]).toContain(m.chat.type);
    expect(typeof m.text).toBe("string");
    expect(typeof m.mentionsBot).toBe("boolean");
    expect(m.attachments.every((a) => typeof a.ref === "string" && a.ref.startsWith("http"))).toBe(true);
  }
  const skipped = s.logs.filter((l) => /^(malformed Discord message payload; skipped|Discord message skipped: )/.test(l.msg)).length;
  expect(handedOver.length + skipped).toBe(COUNT);
  // The mix exercises both paths.
  expect(handedOver.length).toBeGreaterThan(50);
  expect(skipped).toBeGreaterThan(50);
  expect(s.channel.status()).toEqual({ connected: true });
});
