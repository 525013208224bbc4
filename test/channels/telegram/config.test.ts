/** The `channels.telegram` settings refuse what cannot work, saying which setting and why. */
import { describe, expect, it } from "vitest";
import { configSchema } from "../../../src/config.js";

function problems(telegram: Record<string, unknown>): string[] {
  const result = configSchema.safeParse({ channels: { telegram } });
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}

describe("channels.telegram settings", () => {
  it("accepts the defaults and a full webhook setup", () => {
    expect(problems({})).toEqual([]);
    expect(problems({ token: "1:a", mode: "webhook", webhook: { url: "https://bot.example.com/tg", secretToken: "abc_DEF-123" } })).toEqual([]);
  });

  it.each([
    [{ enabled: true }, "channels.telegram.token: enabled is true but no token is set (TELEGRAM_BOT_TOKEN, from @BotFather)"],
    [{ token: "1:a", mode: "webhook" }, "channels.telegram.webhook.url: mode webhook needs webhook.url (the public address Telegram posts updates to)"],
    [{ token: "1:a", webhook: { secretToken: "has spaces" } }, "channels.telegram.webhook.secretToken: 1-256 characters of A-Z a-z 0-9 _ -"],
    [{ token: "1:a", apiRoot: "not a url" }, "channels.telegram.apiRoot: Invalid URL"],
    [{ token: "1:a", pollTimeoutSec: 0 }, "channels.telegram.pollTimeoutSec: Too small: expected number to be >=1"],
    [{ token: "1:a", mode: "push" }, 'channels.telegram.mode: Invalid option: expected one of "polling"|"webhook"'],
  ])("refuses %j", (telegram, problem) => {
    expect(problems(telegram)).toEqual([problem]);
  });
});
