import { describe, expect, it } from "vitest";
import { ContentWithheldDetector } from "../../../src/channels/discord/diagnostics.js";
import { normalizeMessage, type DiscordDirectory } from "../../../src/channels/discord/normalize.js";
import { messageCreateSchema } from "../../../src/channels/discord/payload.js";
import type { InboundMessage } from "../../../src/core/types.js";
import { messagePayload, standardWorld, user, VOICE_MESSAGE_FLAG, type FakeAttachment } from "../../fakes/discord/world.js";

const bot = user("switchboard-bot", { bot: true });
const world = standardWorld(bot);
const alice = user("alice", { global_name: "Alice A." });
const bob = user("bob");

/** The directory the channel builds from discord.js's caches, here from the same world the fake serves. */
const directory: DiscordDirectory = {
  botId: bot.id,
  channel(id) {
    const found = [...world.guild.channels, ...world.guild.threads].find((c) => c.id === id);
    return found && { type: found.type, name: found.name, ...(found.parent_id ? { parentId: found.parent_id } : {}) };
  },
  role(guildId, roleId) {
    const found = guildId === world.guild.id ? world.guild.roles.find((r) => r.id === roleId) : undefined;
    return found && { name: found.name, ...(found.tags?.bot_id ? { botId: found.tags.bot_id } : {}) };
  },
};

function normalize(payload: Record<string, unknown>): InboundMessage {
  const result = normalizeMessage(messageCreateSchema.parse(payload), directory);
  if ("skip" in result) throw new Error(`skipped: ${result.skip}`);
  return result.message;
}

const inGeneral = { channelId: world.general.id, guildId: world.guild.id, author: alice };

function attachment(filename: string, extra: Partial<FakeAttachment> = {}): FakeAttachment {
  const url = `https://cdn.discordapp.com/attachments/1/2/${filename}`;
  return { id: "123456789012345678", filename, size: 2048, url, proxy_url: url, ...extra };
}

describe("normalizeMessage", () => {
  it("renders user, role and channel mentions as names and removes the bot's mention", () => {
    const message = normalize(
      messagePayload({
        ...inGeneral,
        content: `<@${bot.id}> ask <@!${bob.id}> and <@&${world.admins.id}> in <#${world.forum.id}> :) <:party:123456789012345678> </deploy prod:123456789012345678>`,
        mentions: [bot, bob],
        mentionRoles: [world.admins.id],
      }),
    );
    expect(message.text).toBe("ask @bob and @admins in #questions :) :party: /deploy prod");
    expect(message.mentionsBot).toBe(true);
    expect(message).toMatchObject({
      id: `discord:${message.platformMessageId}`,
      channel: "discord",
      chat: { id: world.general.id, type: "group", title: "#general", space: world.guild.id },
      sender: { id: alice.id, name: "Alice A.", username: "alice", isBot: false, roles: [] },
    });
  });

  it("keeps the markup of mentions it cannot resolve, and prefers a member's nickname", () => {
    const message = normalize(
      messagePayload({ ...inGeneral, content: "hi <@999999999999999999> <#888888888888888888>", nick: "Ali", memberRoles: [world.admins.id] }),
    );
    expect(message.text).toBe("hi <@999999999999999999> <#888888888888888888>");
    expect(message.sender).toMatchObject({ name: "Ali", roles: [world.admins.id] });
    expect(message.mentionsBot).toBe(false);
  });

  it("counts a mention of the bot's managed role as a mention of the bot", () => {
    const message = normalize(messagePayload({ ...inGeneral, content: `<@&${world.botRole.id}>, what time is it?`, mentionRoles: [world.botRole.id] }));
    expect(message.mentionsBot).toBe(true);
    expect(message.text).toBe("what time is it?");
  });

  it("treats a reply to the bot as addressed to it and quotes the replied-to text", () => {
    const answer = { id: "777777777777777777", author: bot, content: `see <#${world.general.id}>`, mentions: [] };
    const message = normalize(messagePayload({ ...inGeneral, content: "why?", replyTo: answer }));
    expect(message.mentionsBot).toBe(true);
    expect(message.replyTo).toEqual({ messageId: answer.id, text: "see #general", fromBot: true });

    const toBob = normalize(messagePayload({ ...inGeneral, content: "agreed", replyTo: { id: "666666666666666666", author: bob, content: "lunch?", mentions: [] } }));
    expect(toBob.mentionsBot).toBe(false);
    expect(toBob.replyTo).toMatchObject({ fromBot: false, text: "lunch?" });
  });

  it("puts a thread message in its parent channel's chat with the thread id, for threads and forum posts", () => {
    const inThread = normalize(messagePayload({ ...inGeneral, channelId: world.helpThread.id }));
    expect(inThread.chat).toEqual({ id: world.general.id, type: "group", threadId: world.helpThread.id, title: "#general › login trouble", space: world.guild.id });
    const inForum = normalize(messagePayload({ ...inGeneral, channelId: world.forumPost.id }));
    expect(inForum.chat).toMatchObject({ id: world.forum.id, threadId: world.forumPost.id, title: "#questions › How do I reset?" });
  });

  it("takes a message without a guild as a direct chat on its DM channel", () => {
    const message = normalize(messagePayload({ channelId: "555555555555555555", author: alice, content: "hello" }));
    expect(message.chat).toEqual({ id: "555555555555555555", type: "direct" });
    expect(message.sender.roles).toBeUndefined();
  });

  it("describes attachments by kind, with name, type, size and a voice message's duration", () => {
    const files = [
      attachment("photo.png", { content_type: "image/png" }),
      attachment("song.mp3", { content_type: "audio/mpeg" }),
      attachment("clip.webm"),
      attachment("report.pdf", { content_type: "application/pdf", size: 99 }),
    ];
    const message = normalize(messagePayload({ ...inGeneral, attachments: files }));
    expect(message.attachments.map((a) => a.kind)).toEqual(["image", "audio", "video", "file"]);
    expect(message.attachments[3]).toEqual({ kind: "file", ref: files[3]!.url, name: "report.pdf", mime: "application/pdf", size: 99 });

    const voice = normalize(
      messagePayload({ ...inGeneral, flags: VOICE_MESSAGE_FLAG, attachments: [attachment("voice-message.ogg", { content_type: "audio/ogg", duration_secs: 3.4 })] }),
    );
    expect(voice.attachments[0]).toMatchObject({ kind: "voice", durationSec: 3, mime: "audio/ogg" });
  });

  it("skips messages a person did not write (joins, pins, thread notices)", () => {
    const join = { ...messagePayload(inGeneral), type: 7 };
    expect(normalizeMessage(messageCreateSchema.parse(join), directory)).toEqual({ skip: "message type 7 is not written by a person" });
  });

  it("does not treat a forward as a reply", () => {
    const forward = { ...messagePayload({ ...inGeneral, content: "" }), message_reference: { type: 1, message_id: "444444444444444444" }, message_snapshots: [{}] };
    expect(normalize(forward).replyTo).toBeUndefined();
  });

  it("keeps the message when only the quoted message is malformed", () => {
    const payload = { ...messagePayload({ ...inGeneral, content: "still here" }), message_reference: { message_id: "444444444444444444" }, referenced_message: { id: 5 } };
    const message = normalize(payload);
    expect(message.text).toBe("still here");
    expect(message.replyTo).toEqual({ messageId: "444444444444444444" });
  });
});

describe("ContentWithheldDetector", () => {
  const empty = () => messageCreateSchema.parse(messagePayload({ ...inGeneral, content: "" }));

  it("reports withheld content once, after two empty guild messages in a row", () => {
    const detector = new ContentWithheldDetector();
    expect(detector.observe(empty())).toBeUndefined();
    const problem = detector.observe(empty());
    expect(problem).toMatch(/MESSAGE CONTENT INTENT/);
    expect(problem).toMatch(/Privileged Gateway Intents/);
    expect(detector.observe(empty())).toBeUndefined();
    expect(detector.detected).toBe(problem);
  });

  it("ignores DMs, bots, attachments-only messages, and resets on a message with content", () => {
    const detector = new ContentWithheldDetector();
    const dm = messageCreateSchema.parse(messagePayload({ channelId: "555555555555555555", author: alice }));
    const fromBot = messageCreateSchema.parse(messagePayload({ ...inGeneral, author: user("other-bot", { bot: true }) }));
    const withFile = messageCreateSchema.parse(messagePayload({ ...inGeneral, attachments: [attachment("a.png")] }));
    const spoken = messageCreateSchema.parse(messagePayload({ ...inGeneral, content: "hi" }));
    for (const payload of [dm, dm, fromBot, fromBot, withFile, withFile, empty(), spoken, empty()]) expect(detector.observe(payload)).toBeUndefined();
    expect(detector.detected).toBeUndefined();
  });
});
