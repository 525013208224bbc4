import { describe, expect, it } from "vitest";
import { parseCommand } from "../../src/channels/commands.js";
import { sessionKeyOf, workspaceDirOf } from "../../src/channels/session-key.js";
import type { InboundMessage } from "../../src/channels/types.js";

describe("parseCommand", () => {
  it.each([
    ["/help", { name: "help", args: "" }],
    ["  /STOP  ", { name: "stop", args: "" }],
    ["/new@switchboard_bot", { name: "new", args: "" }],
    ["/reset please\nnow", { name: "reset", args: "please\nnow" }],
    ["/status", { name: "status", args: "" }],
  ])("recognizes %j", (text, expected) => {
    expect(parseCommand(text)).toEqual(expected);
  });

  it.each(["hello /help", "/unknown thing", "/", "//help", "/help-me"])("leaves %j to the model", (text) => {
    expect(parseCommand(text)).toBeNull();
  });
});

describe("session keys", () => {
  const message = (chatType: "direct" | "group", threadId?: string): InboundMessage => ({
    id: "telegram:1",
    platformMessageId: "1",
    channel: "telegram",
    chat: { id: "-100", type: chatType, ...(threadId ? { threadId } : {}) },
    sender: { id: "42" },
    text: "hi",
    attachments: [],
    mentionsBot: true,
    receivedAt: new Date(),
  });

  it("follows the configured scope", () => {
    expect(sessionKeyOf(message("group", "7"), "chat")).toBe("telegram:-100");
    expect(sessionKeyOf(message("group", "7"), "thread")).toBe("telegram:-100:thread:7");
    expect(sessionKeyOf(message("group"), "thread")).toBe("telegram:-100");
    expect(sessionKeyOf(message("group"), "user")).toBe("telegram:-100:user:42");
    expect(sessionKeyOf(message("direct"), "user")).toBe("telegram:-100");
  });

  it("maps keys to distinct, safe directory names", () => {
    const a = workspaceDirOf("/data/ws", "web:../../etc");
    const b = workspaceDirOf("/data/ws", "web:__/__/etc");
    expect(a.startsWith("/data/ws/web_.._.._etc-")).toBe(true);
    expect(a).not.toBe(b);
  });
});
