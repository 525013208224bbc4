import { describe, expect, it } from "vitest";
import type { ChatCommand } from "../../src/core/commands.js";
import { commandTable, helpText, parseCommand } from "../../src/gateway/commands.js";
import { sessionKeyOf, workspaceDirOf } from "../../src/core/session-key.js";
import type { InboundMessage } from "../../src/core/types.js";
import { ENGLISH } from "../../src/infra/i18n/index.js";

const command = (name: string, aliases?: string[]): ChatCommand => ({ name, aliases, summary: `${name} things`, run: async () => name });
const table = commandTable([command("help"), command("new", ["reset"]), command("stop"), command("remind_me")]);

describe("parseCommand", () => {
  it.each([
    ["/help", "help", ""],
    ["  /STOP  ", "stop", ""],
    ["/new@switchboard_bot", "new", ""],
    ["/reset please\nnow", "new", "please\nnow"],
    ["/remind_me in 5m", "remind_me", "in 5m"],
  ])("recognizes %j", (text, name, args) => {
    const parsed = parseCommand(text, table);
    expect(parsed?.command.name).toBe(name);
    expect(parsed?.args).toBe(args);
  });

  it.each(["hello /help", "/unknown thing", "/", "//help", "/help-me"])("leaves %j to the model", (text) => {
    expect(parseCommand(text, table)).toBeNull();
  });

  it("refuses a command name taken twice, and lists aliases in the help", () => {
    expect(() => commandTable([command("new"), command("fresh", ["new"])])).toThrow("/new is defined twice");
    expect(helpText("Bot", [command("renew", ["again"])], ENGLISH.t)).toContain("/renew, /again - renew things");
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
