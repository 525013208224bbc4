/**
 * A server error in a page's language: the code's catalog text with the values the error carries, and the server's
 * English message for a code the page does not know or an error without its values.
 */
import { describe, expect, it } from "vitest";
import consoleEn from "../../console/i18n/en.json" with { type: "json" };
import consoleZh from "../../console/i18n/zh-Hans.json" with { type: "json" };
import { serverErrorText, type Translate } from "../../console/i18n/server-errors.js";
import { createTranslator } from "../../console/i18n/translator.js";
import webchatEn from "../../console/webchat/i18n/en.json" with { type: "json" };
import webchatZh from "../../console/webchat/i18n/zh-Hans.json" with { type: "json" };
import { CONSOLE_ERRORS, WEBCHAT_ERRORS } from "../../src/core/api-errors.js";

const consoleIn = (language: "en" | "zh-Hans"): Translate => {
  const engine = createTranslator({ en: consoleEn, "zh-Hans": consoleZh }, language);
  return (key, values) => engine.t(key, values ?? {});
};
const webchatIn = (language: "en" | "zh-Hans"): Translate => {
  const engine = createTranslator({ en: webchatEn, "zh-Hans": webchatZh }, language);
  return (key, values) => engine.t(key, values ?? {});
};

describe("server error texts", () => {
  it("shows a console error's code in the page's language, with its values", () => {
    const body = { error: "session_not_found", message: "No session web:1", session: "web:1" };
    expect(serverErrorText(consoleIn("zh-Hans"), CONSOLE_ERRORS, body.error, body.message, body)).toBe("没有会话 web:1。");
    expect(serverErrorText(consoleIn("en"), CONSOLE_ERRORS, body.error, body.message, body)).toBe("There is no session web:1.");
    const decided = { error: "already_decided", message: "…", id: "a1", status: "approved" };
    expect(serverErrorText(consoleIn("zh-Hans"), CONSOLE_ERRORS, decided.error, decided.message, decided)).toBe("请求 a1 已经处理过了（approved）。");
  });

  it("shows a WebChat frame's code in the page's language, numbers included", () => {
    const frame = { type: "error", code: "text_too_long", message: "The text has 12 characters; at most 5 are accepted", length: 12, max: 5 };
    expect(serverErrorText(webchatIn("zh-Hans"), WEBCHAT_ERRORS, frame.code, frame.message, frame)).toBe("这条消息有 12 个字符，网关最多接受 5 个。");
    expect(serverErrorText(webchatIn("en"), WEBCHAT_ERRORS, frame.code, frame.message, frame)).toBe(
      "The message has 12 characters; the gateway accepts at most 5.",
    );
  });

  it("falls back to the server's message for a code it does not know, one of the other page's, or none", () => {
    const zh = consoleIn("zh-Hans");
    expect(serverErrorText(zh, CONSOLE_ERRORS, "brand_new", "A newer gateway's refusal", {})).toBe("A newer gateway's refusal");
    expect(serverErrorText(zh, CONSOLE_ERRORS, "text_too_long", "Too long", { length: 2, max: 1 })).toBe("Too long");
    expect(serverErrorText(zh, CONSOLE_ERRORS, "constructor", "Odd", {})).toBe("Odd");
    expect(serverErrorText(zh, CONSOLE_ERRORS, undefined, "No code", {})).toBe("No code");
    expect(serverErrorText(zh, CONSOLE_ERRORS, "malformed", "That is not a pairing code", {})).toBe("这不是配对码。");
  });

  it("falls back to the server's message when the error lacks a value its text needs (an older gateway)", () => {
    const zh = consoleIn("zh-Hans");
    expect(serverErrorText(zh, CONSOLE_ERRORS, "session_not_found", "No session web:1", {})).toBe("No session web:1");
    expect(serverErrorText(zh, CONSOLE_ERRORS, "session_not_found", "No session web:1", { session: { nested: true } })).toBe("No session web:1");
  });
});
