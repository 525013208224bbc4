/** A SlackChannel started against the fake Slack, with the messages it hands over and its log records. */
import { SlackChannel } from "../../../src/channels/slack/channel.js";
import { slackConfigSchema, type SlackConfig } from "../../../src/channels/slack/config.js";
import type { HandleOutcome, InboundMessage } from "../../../src/core/types.js";
import { HttpServer } from "../../../src/infra/http/server.js";
import { captureLog, type LogRecord } from "../../helpers/captured-log.js";
import { memoryStore, silentLog } from "../../scheduler/helpers.js";
import type { FakeSlack } from "../../fakes/slack/index.js";

export interface StartedChannel {
  channel: SlackChannel;
  received: InboundMessage[];
  logs: LogRecord[];
}

export function slackChannel(fake: FakeSlack, overrides: Partial<SlackConfig> = {}): StartedChannel {
  const { log, logs } = captureLog([fake.botToken, fake.appToken, fake.signingSecret]);
  const settings = slackConfigSchema.parse({ botToken: fake.botToken, appToken: fake.appToken, apiUrl: fake.apiUrl, ...overrides });
  const http = new HttpServer({ host: "127.0.0.1", port: 0, token: null, log: silentLog });
  const channel = new SlackChannel({ settings: { ...settings, botToken: settings.botToken ?? fake.botToken }, store: memoryStore(), log, http });
  return { channel, received: [], logs };
}

/** The handler stands in for the router: it records each message and answers `outcome`. */
export async function startSlack(fake: FakeSlack, overrides: Partial<SlackConfig> = {}, outcome: HandleOutcome = "answered"): Promise<StartedChannel> {
  const started = slackChannel(fake, overrides);
  await started.channel.start(async (message) => {
    started.received.push(message);
    return outcome;
  });
  return started;
}
