import { describe, expect, it } from "vitest";
import { normalizeUpdate, type Normalized } from "../../../src/channels/telegram/normalize.js";
import type { InboundMessage } from "../../../src/core/types.js";
import { alice, bob, directChat, forumChat, groupChat, messageOf, messageUpdate, text, topicText } from "../../fakes/telegram/updates.js";

const bot = { id: 123456, username: "switchboard_test_bot" };
const normalize = (update: Record<string, unknown>, handleEdits = false): Normalized =>
  normalizeUpdate({ update_id: 1, ...update }, { bot, handleEdits });

function message(update: Record<string, unknown>): InboundMessage {
  const result = normalize(update);
  if (!result.ok) throw new Error(`not a message: ${result.reason}`);
  return result.message;
}

const botUser = { id: bot.id, is_bot: true, first_name: "Switchboard", username: bot.username };

describe("normalizeUpdate", () => {
  it("turns a direct text message into an InboundMessage with a stable id", () => {
    const update = text(directChat(), "hello there");
    const m = message(update);
    const id = messageOf(update).message_id;
    expect(m).toMatchObject({
      id: `telegram:${alice.id}:${id}`,
      platformMessageId: String(id),
      channel: "telegram",
      chat: { id: String(alice.id), type: "direct", title: "Alice" },
      sender: { id: String(alice.id), name: "Alice Liddell", username: "alice", isBot: false },
      text: "hello there",
      attachments: [],
      mentionsBot: false,
    });
    expect(m.chat.threadId).toBeUndefined();
    expect(m.receivedAt).toBeInstanceOf(Date);
  });

  it("removes the bot's @mention (any case) and marks the message as addressed; other mentions stay", () => {
    const m = message(text(groupChat, "@Switchboard_Test_Bot what does @bob_smith think?"));
    expect(m).toMatchObject({ chat: { type: "group", title: "Team" }, text: "what does @bob_smith think?", mentionsBot: true });
    expect(message(text(groupChat, "ask @someone_else")).mentionsBot).toBe(false);
    expect(message(text(groupChat, "hey @switchboard_test_bot, look")).text).toBe("hey , look");
  });

  it("reads mentions with UTF-16 offsets after emoji", () => {
    expect(message(text(groupChat, "😀👨‍👩‍👧 @switchboard_test_bot 漢字")).text).toBe("😀👨‍👩‍👧 漢字");
  });

  it("counts /cmd@thisbot and a bare /cmd as addressed, /cmd@otherbot not, and shortens the command", () => {
    expect(message(text(groupChat, "/ask@switchboard_test_bot how far is the moon"))).toMatchObject({ text: "/ask how far is the moon", mentionsBot: true });
    expect(message(text(groupChat, "/help"))).toMatchObject({ text: "/help", mentionsBot: true });
    expect(message(text(groupChat, "/ask@other_bot hi"))).toMatchObject({ text: "/ask@other_bot hi", mentionsBot: false });
  });

  it("treats a reply to the bot as addressed, and carries the quoted text", () => {
    const quoted = { message_id: 77, date: 1, chat: groupChat, from: botUser, text: "earlier answer" };
    expect(message(text(groupChat, "and then?", { fields: { reply_to_message: quoted } }))).toMatchObject({
      replyTo: { messageId: "77", text: "earlier answer", fromBot: true },
      mentionsBot: true,
    });
    const toBob = { message_id: 78, date: 1, chat: groupChat, from: bob, caption: "bob's photo" };
    expect(message(text(groupChat, "nice", { fields: { reply_to_message: toBob } }))).toMatchObject({
      replyTo: { messageId: "78", text: "bob's photo", fromBot: false },
      mentionsBot: false,
    });
  });

  it("keeps the forum topic, and does not mistake the topic's opening message for a reply", () => {
    const m = message(topicText(forumChat, 42, "@switchboard_test_bot in the topic"));
    expect(m.chat).toMatchObject({ id: String(forumChat.id), type: "group", threadId: "42" });
    expect(m.replyTo).toBeUndefined();
    // A reply thread outside a forum has a message_thread_id too, which sending cannot target.
    const thread = message(text(groupChat, "x", { fields: { message_thread_id: 9 } }));
    expect(thread.chat.threadId).toBeUndefined();
  });

  it("names the origin of a forwarded message", () => {
    const m = message(text(directChat(), "look at this", { fields: { forward_origin: { type: "user", date: 1, sender_user: bob } } }));
    expect(m.text).toBe("[forwarded from Bob]\nlook at this");
    const hidden = message(text(directChat(), "x", { fields: { forward_origin: { type: "hidden_user", date: 1, sender_user_name: "Carol" } } }));
    expect(hidden.text).toBe("[forwarded from Carol]\nx");
  });

  it("describes media as attachments: the largest photo, voice, audio, video, video note, document, sticker", () => {
    const file = (n: number, extra: Record<string, unknown> = {}) => ({ file_id: `f${n}`, file_unique_id: `u${n}`, file_size: n * 100, ...extra });
    const m = message(
      messageUpdate(directChat(), {
        caption: "@switchboard_test_bot see",
        caption_entities: [{ type: "mention", offset: 0, length: 21 }],
        photo: [file(1, { width: 90, height: 90 }), file(2, { width: 1280, height: 960 }), file(3, { width: 320, height: 240 })],
        voice: file(4, { duration: 3, mime_type: "audio/ogg" }),
        audio: file(5, { duration: 200, title: "Song", mime_type: "audio/mpeg" }),
        video: file(6, { duration: 10, file_name: "clip.mp4", mime_type: "video/mp4" }),
        video_note: file(7, { duration: 5, length: 240 }),
        document: file(8, { file_name: "report.pdf", mime_type: "application/pdf" }),
        sticker: file(9, { emoji: "👍", is_animated: false, is_video: false, width: 512, height: 512, type: "regular" }),
      }),
    );
    expect(m.text).toBe("see");
    expect(m.mentionsBot).toBe(true);
    expect(m.attachments).toEqual([
      { kind: "image", ref: "f2", mime: "image/jpeg", size: 200 },
      { kind: "file", ref: "f8", name: "report.pdf", mime: "application/pdf", size: 800 },
      { kind: "voice", ref: "f4", mime: "audio/ogg", size: 400, durationSec: 3 },
      { kind: "audio", ref: "f5", name: "Song", mime: "audio/mpeg", size: 500, durationSec: 200 },
      { kind: "video", ref: "f6", name: "clip.mp4", mime: "video/mp4", size: 600, durationSec: 10 },
      { kind: "video", ref: "f7", mime: "video/mp4", size: 700, durationSec: 5 },
      { kind: "sticker", ref: "f9", mime: "image/webp", size: 900, name: "👍" },
    ]);
  });

  it("reads an animation once, not again as its document twin", () => {
    const gif = { file_id: "g1", file_unique_id: "gu1", duration: 2, mime_type: "video/mp4", file_name: "fun.mp4" };
    const m = message(messageUpdate(directChat(), { animation: gif, document: { ...gif } }));
    expect(m.attachments).toEqual([{ kind: "video", ref: "g1", name: "fun.mp4", mime: "video/mp4", durationSec: 2 }]);
  });

  it("uses the posting chat as the sender for anonymous admins", () => {
    const anonymous = { id: 1087968824, is_bot: true, first_name: "Group", username: "GroupAnonymousBot" };
    const m = message(text(groupChat, "@switchboard_test_bot hi", { from: anonymous, fields: { sender_chat: groupChat } }));
    expect(m.sender).toMatchObject({ id: String(groupChat.id), name: "Team", isBot: false });
  });

  it("ignores edits by default; with handleEdits an edit gets its own id", () => {
    const original = messageOf(text(directChat(), "first"));
    const edit = { edited_message: { ...original, text: "second", edit_date: original.date as number } };
    expect(normalize(edit)).toEqual({ ok: false, reason: "edited message ignored", expected: true });
    const handled = normalizeUpdate({ update_id: 2, ...edit }, { bot, handleEdits: true });
    expect(handled.ok && handled.message).toMatchObject({ id: `telegram:${alice.id}:${original.message_id}:edit:${original.date}`, text: "second" });
  });

  it("answers why other updates are not messages: expected kinds vs malformed payloads", () => {
    expect(normalize({ callback_query: { id: "1" } })).toEqual({ ok: false, reason: "update of kind callback_query is not handled", expected: true });
    expect(normalize({ message: { ...messageOf(text(directChat(), "x")), chat: { id: -100, type: "channel", title: "News" } } })).toMatchObject({ ok: false, expected: true });
    expect(normalize({ message: { message_id: "nope", date: 1, chat: directChat() } })).toMatchObject({ ok: false, expected: false, reason: expect.stringContaining("message_id") });
    expect(normalize({ message: { message_id: 1, date: 1, chat: directChat() } })).toEqual({ ok: false, reason: "message without a sender", expected: false });
    expect(normalize({ message: { message_id: 1, date: 1e15, chat: directChat(), from: alice } })).toMatchObject({ ok: false, expected: false });
  });

  it("skips entities that point past the end of the text instead of failing", () => {
    const update = messageUpdate(groupChat, { text: "short", entities: [{ type: "mention", offset: 2, length: 40 }] });
    expect(message(update)).toMatchObject({ text: "short", mentionsBot: false });
  });
});
