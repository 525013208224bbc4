/**
 * A gateway killed with SIGKILL right after its replies went out answers none of them again when it (or another
 * replica) takes over: the record that a message was answered is written as soon as its send returns, with its inbox
 * entry removed in the same write. Telegram has no idempotency key, so that record is the only defence.
 *
 * The kill comes as soon as the gateway logs "reply delivered and recorded" for each message of a run, long before
 * the turns end (the acknowledgement taken back, the places released, the inbox cleared as before): the moment a
 * record that lagged the send would double the replies. The lag between the platform receiving a reply and that
 * line is printed.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@keyv/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SQLITE_FILE } from "../../src/infra/store/store-url.js";
import { startFakeOpenAI, type FakeOpenAI, type FakeRequest } from "../fakes/openai-server.js";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram/server.js";
import { directChat, text, type TgUser } from "../fakes/telegram/updates.js";
import { buildGateway, type BuiltGateway } from "../helpers/built-gateway.js";
import { spawnGateway, type GatewayProcess, type LogLine } from "../helpers/gateway-process.js";
import { queryFile } from "../helpers/sqlite-file.js";
import { eventually } from "../helpers/wait.js";

const REDIS_URL = process.env.REDIS_URL;
const USERS: TgUser[] = Array.from({ length: 3 }, (_, i) => ({ id: 8100 + i, is_bot: false, first_name: `Crash${i}` }));
/** Messages per run: one per user, so they are answered side by side. */
const PER_RUN = USERS.length;

/** The model answers "echo msg-N" to the message that carries "msg-N". */
function echoResponder(request: FakeRequest): { text: string } {
  const lastUser = [...(request.body.messages ?? [])].reverse().find((m) => m.role === "user");
  const tag = /msg-\d+/.exec(JSON.stringify(lastUser ?? ""))?.[0] ?? "nothing";
  return { text: `echo ${tag}` };
}

/** How often each message was answered, as the chats show. */
function answerCounts(fake: FakeTelegram, total: number): number[] {
  const counts = new Array<number>(total).fill(0);
  for (const sent of fake.sent) {
    const n = /^echo msg-(\d+)$/.exec(sent.text ?? "")?.[1];
    if (n !== undefined) counts[Number(n)]! += 1;
  }
  return counts;
}

function doubles(fake: FakeTelegram, total: number): string[] {
  return answerCounts(fake, total).flatMap((count, n) => (count > 1 ? [`msg-${n} answered ${count} times`] : []));
}

/** Pushes the run's messages, one per user; answers their numbers. */
function pushRun(fake: FakeTelegram, run: number): number[] {
  return USERS.map((user, i) => {
    const n = run * PER_RUN + i;
    fake.addUpdate(text(directChat(user), `hello msg-${n}`, { from: user }));
    return n;
  });
}

/** Waits until the gateway logged that the replies to `count` messages went out. */
function repliesDelivered(gateway: GatewayProcess, count: number): Promise<LogLine> {
  const delivered = () => gateway.lines.filter((line) => line.msg === "reply delivered and recorded").length;
  return gateway.waitForLog(() => delivered() >= count, `${count} replies delivered`, 20_000);
}

/** For each reply the gateway recorded: ms from the platform receiving it to the gateway's line saying so. */
function recordLags(fake: FakeTelegram, gateway: GatewayProcess): number[] {
  return gateway.lines
    .filter((line) => line.msg === "reply delivered and recorded")
    .map((line) => line.time - fake.sent.findLast((sent) => sent.chatId === line.chatId)!.at);
}

function gatewayConfig(dir: string, llm: FakeOpenAI, fake: FakeTelegram, extra: object = {}): object {
  return {
    dataDir: dir,
    http: { port: 0 },
    log: { level: "debug" },
    llm: { baseUrl: llm.url, model: "fake-model", apiKey: "sk-crash-test" },
    memory: { enabled: false },
    access: { owners: USERS.map((u) => `telegram:${u.id}`) },
    channels: { telegram: { token: fake.token, apiRoot: fake.url, streaming: "off", ackReaction: null } },
    ...extra,
  };
}

describe("a gateway killed right after its replies went out", () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  // Started from the bundle: 25 starts from the TypeScript sources would take minutes.
  let built: BuiltGateway;
  beforeAll(async () => {
    built = await buildGateway();
    cleanups.push(() => built.remove());
  }, 60_000);
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it("on SQLite, restarted on the same data dir: no reply doubled in 20 kills", { timeout: 240_000 }, async () => {
    const RUNS = 20;
    const fake = await startFakeTelegram({ token: "515151:crash-doubles-token" });
    const llm = await startFakeOpenAI();
    llm.respondWith(echoResponder);
    const dir = await mkdtemp(join(tmpdir(), "switchboard-crash-"));
    cleanups.push(() => fake.close(), () => llm.close(), () => rm(dir, { recursive: true, force: true }));
    const config = gatewayConfig(dir, llm, fake);
    const inboxLeft = () => queryFile(join(dir, DEFAULT_SQLITE_FILE), "SELECT count(*) AS n FROM entry_sets WHERE set_key LIKE '%telegram-inbox%'")[0]!.n;

    const started = Date.now();
    let replayed = 0;
    const lags: number[] = [];
    for (let run = 0; run <= RUNS; run++) {
      const gateway = await spawnGateway(dir, config, built.entry);
      cleanups.push(() => gateway.stop("SIGKILL"));
      await gateway.url(30_000);
      // What the last run left (confirmed to Telegram or not) is handled before this run's messages count.
      await eventually(() => fake.pendingUpdates() === 0 && inboxLeft() === 0, "the last run's updates handled", 20_000);
      replayed += gateway.lines.filter((l) => l.msg === "duplicate delivery dropped").length;
      expect(doubles(fake, run * PER_RUN), `after kill ${run}`).toEqual([]);
      if (run === RUNS) {
        await gateway.stop("SIGTERM");
        break;
      }
      pushRun(fake, run);
      await repliesDelivered(gateway, PER_RUN);
      await gateway.stop("SIGKILL");
      lags.push(...recordLags(fake, gateway));
    }
    const counts = answerCounts(fake, RUNS * PER_RUN);
    expect(counts.filter((c) => c === 0)).toEqual([]);
    expect(doubles(fake, RUNS * PER_RUN)).toEqual([]);
    console.info(
      `crash doubles (SQLite): ${RUNS} kills, ${RUNS * PER_RUN} replies, none doubled, ${replayed} redeliveries dropped, ${Date.now() - started} ms; ` +
        `reply received by the platform to recorded: median ${lags.sort((a, b) => a - b)[lags.length >> 1]} ms, max ${lags.at(-1)} ms`,
    );
  });

  describe.skipIf(!REDIS_URL)("on Redis", () => {
    it("three replicas, the polling one killed right after its replies: the next holder answers none again", { timeout: 120_000 }, async () => {
      const RUNS = 6;
      const keyPrefix = `switchboard-test:${randomUUID()}:`;
      const fake = await startFakeTelegram({ token: "525252:crash-doubles-replicas" });
      const llm = await startFakeOpenAI();
      llm.respondWith(echoResponder);
      const redis = createClient({ url: REDIS_URL! });
      await redis.connect();
      cleanups.push(
        () => fake.close(),
        () => llm.close(),
        async () => {
          for await (const keys of redis.scanIterator({ MATCH: `${keyPrefix}*` })) if (keys.length > 0) await redis.del(keys);
          await redis.close();
        },
      );
      const inboxLeft = () => redis.hLen(`${keyPrefix}sets:meta:telegram-inbox:525252`);
      const start = async (i: number): Promise<GatewayProcess> => {
        const dir = await mkdtemp(join(tmpdir(), `switchboard-crash-replica-${i}-`));
        const gateway = await spawnGateway(
          dir,
          gatewayConfig(dir, llm, fake, { store: { url: REDIS_URL, keyPrefix }, replica: { id: `crash-replica-${i}`, heartbeatMs: 300 } }),
          built.entry,
        );
        cleanups.push(() => gateway.stop("SIGKILL"), () => rm(dir, { recursive: true, force: true }));
        return gateway;
      };
      const replicas = await Promise.all([0, 1, 2].map(start));
      await Promise.all(replicas.map((r) => r.url(30_000)));
      const holderOf = (among: GatewayProcess[]) =>
        eventually(() => among.find((r) => r.lines.some((l) => l.msg?.startsWith("lease acquired") === true)), "a replica to hold the poller", 20_000);

      const started = Date.now();
      let next = 3;
      for (let run = 0; run < RUNS; run++) {
        const holder = await holderOf(replicas);
        pushRun(fake, run);
        await repliesDelivered(holder, PER_RUN);
        await holder.stop("SIGKILL");
        replicas.splice(replicas.indexOf(holder), 1);
        // The killed one comes back as a new replica while another takes the poller over.
        replicas.push(await start(next++));
        await eventually(async () => fake.pendingUpdates() === 0 && (await inboxLeft()) === 0, "the killed holder's updates handled by the next", 20_000);
        expect(doubles(fake, (run + 1) * PER_RUN), `after kill ${run}`).toEqual([]);
      }
      expect(answerCounts(fake, RUNS * PER_RUN).filter((c) => c === 0)).toEqual([]);
      expect(doubles(fake, RUNS * PER_RUN)).toEqual([]);
      console.info(`crash doubles (Redis, 3 replicas): ${RUNS} holder kills, ${RUNS * PER_RUN} replies, none doubled, ${Date.now() - started} ms`);
    });
  });
});
