import { describe, expect, it } from "vitest";
import { messageEventSchema, toInboundMessage, type MessageEvent } from "../../../src/channels/feishu/normalize.js";
import { messageEvent, textEvent, type MessageSpec } from "../../fakes/feishu/events.js";

const BOT = "ou_bot";
const bot = { key: "@_user_1", openId: BOT, name: "Switchboard" };
const bob = { key: "@_user_2", openId: "ou_bob", name: "Bob" };

function eventOf(spec: MessageSpec): MessageEvent {
  return messageEventSchema.parse(messageEvent(spec).event);
}

const normalize = (spec: MessageSpec, repliesToBot = false) => toInboundMessage(eventOf(spec), { botOpenId: BOT, repliesToBot });

describe("normalizing im.message.receive_v1", () => {
  it("maps a direct text message: ids, chat, sender, time", () => {
    const envelope = textEvent("hello there", { chatId: "oc_1", messageId: "om_1", senderOpenId: "ou_alice", senderUserId: "u_7" });
    const message = toInboundMessage(messageEventSchema.parse(envelope.event), { botOpenId: BOT, repliesToBot: false });
    expect(message).toMatchObject({
      id: "feishu:om_1",
      platformMessageId: "om_1",
      channel: "feishu",
      chat: { id: "oc_1", type: "direct" },
      sender: { id: "ou_alice", username: "u_7", isBot: false },
      text: "hello there",
      attachments: [],
      mentionsBot: false,
    });
    expect(message.chat.threadId).toBeUndefined();
    expect(message.replyTo).toBeUndefined();
    expect(Math.abs(message.receivedAt.getTime() - Date.now())).toBeLessThan(5_000);
  });

  it("resolves mentions: people by name, @_all as @all, the bot's own mention removed", () => {
    const message = normalize({
      chatType: "group",
      content: { text: "@_user_1 please ask @_user_2 and @_all about it" },
      mentions: [bot, bob],
    });
    expect(message.text).toBe("please ask @Bob and @all about it");
    expect(message.chat.type).toBe("group");
    expect(message.mentionsBot).toBe(true);
  });

  it("does not take @_user_1 for @_user_10, and leaves an unlisted placeholder as it is", () => {
    const tenth = { key: "@_user_10", openId: "ou_ten", name: "Ten" };
    const message = normalize({ chatType: "group", content: { text: "@_user_10 and @_user_3 hi" }, mentions: [tenth] });
    expect(message.text).toBe("@Ten and @_user_3 hi");
    expect(message.mentionsBot).toBe(false);
  });

  it("counts a reply to one of the bot's messages as addressing it", () => {
    const message = normalize({ chatType: "group", content: { text: "and then?" }, parentId: "om_bot_1", rootId: "om_bot_1" }, true);
    expect(message.mentionsBot).toBe(true);
    expect(message.replyTo).toEqual({ messageId: "om_bot_1", fromBot: true });
  });

  it("keeps a thread as its root message, so replies go back into it", () => {
    const inThread = normalize({ chatType: "group", content: { text: "x" }, threadId: "omt_1", rootId: "om_root" });
    expect(inThread.chat.threadId).toBe("om_root");
    const starts = normalize({ chatType: "group", content: { text: "x" }, threadId: "omt_2", messageId: "om_first" });
    expect(starts.chat.threadId).toBe("om_first");
    const quoteOnly = normalize({ chatType: "group", content: { text: "x" }, rootId: "om_q", parentId: "om_q" });
    expect(quoteOnly.chat.threadId).toBeUndefined();
  });

  it("marks messages sent by apps, its own included, as from a bot", () => {
    expect(normalize({ content: { text: "beep" }, senderType: "app", senderOpenId: BOT }).sender.isBot).toBe(true);
  });

  it("flattens a post: title, styles, links, mentions, code, and images as attachments", () => {
    const content = {
      title: "Weekly report",
      content: [
        [
          { tag: "at", user_id: "@_user_1", user_name: "Switchboard" },
          { tag: "text", text: " please read " },
          { tag: "a", text: "the doc", href: "https://example.com/doc" },
          { tag: "text", text: "important", style: ["bold"] },
        ],
        [{ tag: "img", image_key: "img_v3_abc" }],
        [{ tag: "text", text: "cc " }, { tag: "at", user_id: "@_user_2", user_name: "Bob" }, { tag: "emotion", emoji_type: "SMILE" }],
        [{ tag: "code_block", language: "PYTHON", text: "print(1)" }],
        [{ tag: "media", file_key: "file_v3_vid", image_key: "img_cover" }],
        [{ tag: "a", text: "bad", href: "javascript:alert(1)" }],
      ],
    };
    const message = normalize({ chatType: "group", messageType: "post", messageId: "om_p", content, mentions: [bot, bob] });
    expect(message.text).toBe(
      [
        "**Weekly report**",
        "please read [the doc](https://example.com/doc)**important**",
        "[image 1]",
        "cc @Bob:SMILE:",
        "\n```python\nprint(1)\n```\n",
        "[video 2]",
        "bad",
      ].join("\n"),
    );
    expect(message.attachments).toEqual([
      { kind: "image", ref: "om_p/img_v3_abc" },
      { kind: "video", ref: "om_p/file_v3_vid" },
    ]);
    expect(message.mentionsBot).toBe(true);
  });

  it("reads a post wrapped in a locale key", () => {
    const content = { en_us: { title: "", content: [[{ tag: "text", text: "hello from a locale" }]] } };
    expect(normalize({ messageType: "post", content }).text).toBe("hello from a locale");
  });

  it("turns image, file, audio and media messages into attachments", () => {
    const of = (messageType: string, content: object) => normalize({ messageType, content, messageId: "om_m" });
    expect(of("image", { image_key: "img_1" })).toMatchObject({ text: "", attachments: [{ kind: "image", ref: "om_m/img_1" }] });
    expect(of("file", { file_key: "file_1", file_name: "report.pdf" }).attachments).toEqual([
      { kind: "file", ref: "om_m/file_1", name: "report.pdf" },
    ]);
    const voice = of("audio", { file_key: "file_2", duration: 4600 });
    expect(voice.attachments).toEqual([{ kind: "voice", ref: "om_m/file_2", durationSec: 5 }]);
    expect(of("media", { file_key: "file_3", image_key: "img_c", file_name: "clip.mp4", duration: 12000 }).attachments).toEqual([
      { kind: "video", ref: "om_m/file_3", name: "clip.mp4", durationSec: 12 },
    ]);
  });

  it("says what arrived for types it cannot read, and for content that is not what the type promises", () => {
    expect(normalize({ messageType: "sticker", content: { file_key: "s" } }).text).toBe("[sticker message]");
    expect(normalize({ messageType: "text", content: "{not json" }).text).toBe("[text message that could not be read]");
    expect(normalize({ messageType: "image", content: { image_key: 5 } }).text).toBe("[image message that could not be read]");
    expect(normalize({ messageType: "post", content: { title: 1 } }).text).toBe("[post message that could not be read]");
  });

  it("never makes an attachment of a key that could leave its URL path segment", () => {
    const message = normalize({ messageType: "image", content: { image_key: "../../etc/passwd" } });
    expect(message.attachments).toEqual([]);
    expect(message.text).toBe("[image message]");
  });

  it("rejects events without the fields a message needs", () => {
    const valid = textEvent("x").event;
    const broken = [
      { ...valid, message: { ...valid.message, message_id: "" } },
      { ...valid, message: { ...valid.message, chat_id: undefined } },
      { ...valid, message: { ...valid.message, content: { text: "not a string" } } },
      { ...valid, sender: "ou_alice" },
      { ...valid, sender: { sender_id: { open_id: "", user_id: null }, sender_type: "user" } },
      { message: valid.message },
    ];
    for (const event of broken) expect(messageEventSchema.safeParse(event).success).toBe(false);
  });
});
