/** The `channels.slack` section: on with the bot token, and then the mode's own credential is required. */
import { describe, expect, it } from "vitest";
import { ConfigError, enabledChannels, loadConfig } from "../../../src/config.js";

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig({ env });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
};

describe("channels.slack", () => {
  it("is on when SLACK_BOT_TOKEN is set, with the app token for Socket Mode or the signing secret for the Events API", () => {
    const socket = loadConfig({ env: { SLACK_BOT_TOKEN: "xoxb-1", SLACK_APP_TOKEN: "xapp-1", SLACK_API_URL: "http://127.0.0.1:1/api/" } });
    expect(enabledChannels(socket).map((m) => m.name)).toContain("slack");
    expect(socket.channels.slack).toMatchObject({ mode: "socket", apiUrl: "http://127.0.0.1:1/api/" });
    expect(enabledChannels(loadConfig({ env: {} })).map((m) => m.name)).not.toContain("slack");
  });

  it("says which credential the mode lacks", () => {
    expect(problemsOf({ SLACK_BOT_TOKEN: "xoxb-1" })).toEqual([expect.stringMatching(/channels\.slack\.appToken.*Socket Mode needs an app-level token \(SLACK_APP_TOKEN/)]);
    expect(problemsOf({ SLACK_APP_TOKEN: "xapp-1", SLACK_SIGNING_SECRET: "s" })).toEqual([]);
  });
});
