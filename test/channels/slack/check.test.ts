/** `switchboard doctor` for Slack against the fake: auth.test, the scopes granted, a real Socket Mode connection. */
import { afterEach, describe, expect, it } from "vitest";
import { slackChannel } from "../../../src/channels/slack/index.js";
import { REQUIRED_SCOPES } from "../../../src/channels/slack/check.js";
import { DEFAULT_SCOPES, startFakeSlack, type FakeSlack } from "../../fakes/slack/index.js";

let fake: FakeSlack | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const settings = (f: FakeSlack, extra: Record<string, unknown> = {}) =>
  slackChannel.configSchema.parse({ botToken: f.botToken, appToken: f.appToken, signingSecret: f.signingSecret, apiUrl: f.apiUrl, ...extra });
const check = (f: FakeSlack, extra: Record<string, unknown> = {}) => slackChannel.check(settings(f, extra), undefined as never);

describe("Slack doctor check", () => {
  it("reports the bot, the scopes and a Socket Mode connection that said hello", async () => {
    fake = await startFakeSlack();
    expect(await check(fake)).toBe("token valid for switchboard in Fake Team; scopes complete; Socket Mode connected");
    expect(fake.socket.connections).toBe(1);
    expect(await check(fake, { mode: "events" })).toBe("token valid for switchboard in Fake Team; scopes complete; Events API at /slack/events");
  });

  it("names the scopes the bot token lacks", async () => {
    fake = await startFakeSlack({ scopes: DEFAULT_SCOPES.filter((s) => s !== "files:write" && s !== "im:history" && s !== "usergroups:read") });
    await expect(check(fake)).rejects.toThrow(/lacks the scopes im:history, files:write: add them under OAuth & Permissions/);
    fake.api.scopes = REQUIRED_SCOPES;
    expect(await check(fake)).toContain("optional ones missing: usergroups:read, mpim:history, im:write, users:read");
  });

  it("says which credential Slack refused", async () => {
    fake = await startFakeSlack();
    await expect(check(fake, { botToken: "xoxb-nope" })).rejects.toThrow("auth.test failed: Slack refused: invalid_auth");
    await expect(check(fake, { appToken: "xapp-nope" })).rejects.toThrow("Socket Mode did not connect: Slack refused: invalid_auth");
    await expect(check(fake, { apiUrl: "http://127.0.0.1:9/api/" })).rejects.toThrow(/auth\.test failed: no answer \(ECONNREFUSED\)/);
  });
});
