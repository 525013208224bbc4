/**
 * The Slack channel over Socket Mode against the fake Slack, in this process: how soon each envelope is
 * acknowledged (Slack wants it within 3 s) while a burst arrives, how many messages a second go from envelope to
 * the reply posted (the handler answers each with sendText, as the router would, without a model), CPU per message,
 * and what turning a long Markdown reply into mrkdwn parts costs.
 */
import { pino } from "pino";
import { SlackChannel } from "../src/channels/slack/channel.js";
import { slackConfigSchema } from "../src/channels/slack/config.js";
import { mrkdwnChunks } from "../src/channels/slack/format.js";
import { targetOf } from "../src/core/types.js";
import { HttpServer } from "../src/infra/http/server.js";
import { alice, dmOf, messageEvent, startFakeSlack } from "../test/fakes/slack/index.js";
import { memoryStore } from "../test/scheduler/helpers.js";
import { eventually } from "../test/helpers/wait.js";
import type { BenchResult } from "./types.js";

const BURST = Number(process.env.BENCH_SLACK_BURST ?? 500);
const log = pino({ level: "silent" });

export async function run(): Promise<BenchResult> {
  const fake = await startFakeSlack();
  const settings = slackConfigSchema.parse({ botToken: fake.botToken, appToken: fake.appToken, apiUrl: fake.apiUrl, ackReaction: null });
  const http = new HttpServer({ host: "127.0.0.1", port: 0, token: null, log });
  const channel = new SlackChannel({ settings: { ...settings, botToken: fake.botToken }, store: memoryStore(), log, http });
  await channel.start(async (message) => {
    await channel.sendText(targetOf(message), `re: ${message.text}`);
    return "answered";
  });
  await eventually(() => channel.status().connected, "connected", 10_000);

  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < BURST; i++) fake.pushEvent(messageEvent({ channel: dmOf(alice), user: alice, text: `message ${i}` }));
  await eventually(() => fake.api.sent().length === BURST, "every reply", 120_000);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await channel.stop();
  await fake.close();

  const acks = fake.socket.envelopes.map((e) => e.ackedAfterMs ?? Number.POSITIVE_INFINITY).sort((a, b) => a - b);
  const at = (q: number) => acks[Math.min(acks.length - 1, Math.floor(q * acks.length))]!;
  const markdown = Array.from({ length: 40 }, (_, i) => `## Part ${i}\n\n**Point** with [a link](https://example.com/${i}) & <angle> text, \`code\`.\n\n- one\n- two`).join("\n\n");
  const renders = 200;
  const renderCpu = process.cpuUsage();
  for (let i = 0; i < renders; i++) mrkdwnChunks(markdown);
  const renderMs = (process.cpuUsage(renderCpu).user + process.cpuUsage(renderCpu).system) / 1000 / renders;

  return {
    name: "slack",
    workload: `${BURST} DMs pushed at once over Socket Mode to the SlackChannel (fake Slack in process, memory store), each answered with one chat.postMessage; mrkdwn of a ${markdown.length}-character reply`,
    rows: [
      { measure: "ack latency median", value: `${at(0.5).toFixed(0)} ms` },
      { measure: "ack latency p99", value: `${at(0.99).toFixed(0)} ms` },
      { measure: "ack latency max", value: `${acks.at(-1)!.toFixed(0)} ms` },
      { measure: "envelopes sent again (ack later than 3 s)", value: fake.socket.envelopes.filter((e) => e.attempts > 1).length },
      { measure: "messages per second, envelope to reply posted", value: (BURST / seconds).toFixed(0) },
      { measure: "CPU per message (channel, SDKs and fake together)", value: `${((used.user + used.system) / 1000 / BURST).toFixed(2)} ms` },
      { measure: "mrkdwn parts of the reply, CPU", value: `${renderMs.toFixed(2)} ms` },
    ],
  };
}
