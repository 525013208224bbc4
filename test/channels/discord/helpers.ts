/** A DiscordChannel started against the fake Discord, with the messages it hands over and its log records. */
import { DiscordChannel } from "../../../src/channels/discord/channel.js";
import { discordConfigSchema, type DiscordConfig } from "../../../src/channels/discord/config.js";
import type { HandleOutcome, InboundMessage } from "../../../src/core/types.js";
import type { Store } from "../../../src/infra/store/types.js";
import { captureLog, type LogRecord } from "../../helpers/captured-log.js";
import { memoryStore } from "../../scheduler/helpers.js";
import { until, type FakeDiscord, type PostedMessage } from "../../fakes/discord/index.js";

export interface StartedChannel {
  channel: DiscordChannel;
  received: InboundMessage[];
  logs: LogRecord[];
}

export function discordConfig(fake: FakeDiscord, overrides: Partial<DiscordConfig> = {}): DiscordConfig & { token: string } {
  const config = discordConfigSchema.parse({ token: fake.token, apiUrl: fake.apiUrl, ...overrides });
  return { ...config, token: config.token ?? fake.token };
}

/** The handler stands in for the router: it records each message and answers `outcome`. */
export function createChannel(fake: FakeDiscord, overrides: Partial<DiscordConfig> = {}, store: Store = memoryStore()): StartedChannel {
  const { log, logs } = captureLog([fake.token]);
  return { channel: new DiscordChannel({ config: discordConfig(fake, overrides), log, store }), received: [], logs };
}

export async function startChannel(fake: FakeDiscord, overrides: Partial<DiscordConfig> = {}, outcome: HandleOutcome = "answered"): Promise<StartedChannel> {
  const started = createChannel(fake, overrides);
  await started.channel.start(async (message) => {
    started.received.push(message);
    return outcome;
  });
  return started;
}

/** Test teardown: the channel first (it holds a gateway connection to the fake), then the fake. */
export async function closeAll(started: StartedChannel | undefined, fake: FakeDiscord | undefined): Promise<void> {
  await started?.channel.stop();
  await fake?.close();
}

/** The first message the bot posted whose content matches `pattern`, once there is one. */
export async function postedMatching(fake: FakeDiscord, pattern: RegExp): Promise<PostedMessage> {
  await until(() => fake.messages.some((m) => pattern.test(String(m.payload.content ?? ""))), `a message matching ${pattern}`);
  return fake.messages.find((m) => pattern.test(String(m.payload.content ?? "")))!;
}

/** The labels of a posted message's buttons, row by row. */
export function buttonRows(message: PostedMessage): string[][] {
  return ((message.payload.components ?? []) as Array<{ components: Array<{ label: string }> }>).map((row) => row.components.map((b) => b.label));
}
