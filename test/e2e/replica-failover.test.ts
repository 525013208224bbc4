/**
 * Three gateway processes on one Redis and one Telegram bot in polling mode: exactly one polls at a time (the fake
 * ends a held getUpdates with 409 when a second one comes, as Telegram does, and none may be served), and when the
 * holder is killed with SIGKILL while messages keep coming, another replica takes over within 10 s and every
 * message is answered exactly once.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@keyv/redis";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI, type FakeRequest } from "../fakes/openai-server.js";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram/server.js";
import { directChat, text, type TgUser } from "../fakes/telegram/updates.js";
import { spawnGateway, type GatewayProcess } from "../helpers/gateway-process.js";
import { eventually } from "../helpers/wait.js";

const REDIS_URL = process.env.REDIS_URL;
const USERS: TgUser[] = Array.from({ length: 25 }, (_, i) => ({ id: 7000 + i, is_bot: false, first_name: `User${i}` }));
const TOTAL = 500;
const BEFORE_KILL = 200;

/** The model answers "echo msg-N" to the message that carries "msg-N". */
function echoResponder(request: FakeRequest): { text: string } {
  const lastUser = [...(request.body.messages ?? [])].reverse().find((m) => m.role === "user");
  const tag = /msg-\d+/.exec(JSON.stringify(lastUser ?? ""))?.[0] ?? "nothing";
  return { text: `echo ${tag}` };
}

interface Replica {
  id: string;
  llm: FakeOpenAI;
  process: GatewayProcess;
  url: string;
}

describe.skipIf(!REDIS_URL)("replicas on one Redis, one Telegram bot in polling mode", () => {
  const keyPrefix = `switchboard-test:${randomUUID()}:`;
  const replicas: Replica[] = [];
  let telegram: FakeTelegram | undefined;

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.process.stop("SIGKILL")));
    await Promise.all(replicas.map((r) => r.llm.close()));
    await telegram?.close();
    const client = createClient({ url: REDIS_URL! });
    await client.connect();
    for await (const keys of client.scanIterator({ MATCH: `${keyPrefix}*` })) if (keys.length > 0) await client.del(keys);
    await client.close();
  });

  it("one poller at a time; the holder killed mid-stream is replaced within 10 s and every message is answered once", { timeout: 120_000 }, async () => {
    const fake = (telegram = await startFakeTelegram({ token: "424242:replica-failover-token" }));
    const started = Date.now();
    for (let i = 0; i < 3; i++) {
      const llm = await startFakeOpenAI();
      llm.respondWith(echoResponder);
      const dir = await mkdtemp(join(tmpdir(), `switchboard-replica-${i}-`));
      const id = `replica-${i}`;
      const gateway = await spawnGateway(dir, {
        dataDir: dir,
        http: { port: 0 },
        store: { url: REDIS_URL, keyPrefix },
        replica: { id, heartbeatMs: 500 },
        llm: { baseUrl: llm.url, model: "fake-model", apiKey: "sk-replica-test" },
        // A turn the killed holder had claimed is handed over once this lease runs out.
        sessions: { dedupLeaseMinutes: 0.05, maxConcurrent: 25 },
        memory: { enabled: false },
        access: { owners: USERS.map((u) => `telegram:${u.id}`) },
        channels: { telegram: { token: fake.token, apiRoot: fake.url, streaming: "off", ackReaction: null } },
      });
      replicas.push({ id, llm, process: gateway, url: "" });
    }
    for (const replica of replicas) replica.url = await replica.process.url(60_000);
    const startupMs = Date.now() - started;

    // /readyz says who holds the poller and lists the three live replicas.
    const readiness = async (replica: Replica) => {
      const body = (await (await fetch(`${replica.url}/readyz`)).json()) as { components: Record<string, { detail?: string }> };
      return body.components.replica?.detail ?? "";
    };
    const holderOf = async (among: Replica[]): Promise<Replica> => {
      const holders: Replica[] = [];
      for (const replica of among) if ((await readiness(replica)).startsWith(`${replica.id} holds telegram:424242`)) holders.push(replica);
      expect(holders.length).toBeLessThanOrEqual(1);
      return holders[0]!;
    };
    const holder = await eventually(() => holderOf(replicas), "one replica to hold the Telegram poller", 10_000);
    await eventually(async () => (await readiness(holder)).split("live: ")[1]?.split("; ").length === 3, "three live replicas in /readyz", 10_000);

    /** How often each message was answered, from one pass over what the bot sent. */
    const answerCounts = (): number[] => {
      const counts = new Array<number>(TOTAL).fill(0);
      for (const sent of fake.sent) {
        const n = /^echo msg-(\d+)$/.exec(sent.text ?? "")?.[1];
        if (n !== undefined) counts[Number(n)]! += 1;
      }
      return counts;
    };
    const send = (from: number, to: number) => {
      for (let n = from; n < to; n++) {
        const user = USERS[n % USERS.length]!;
        fake.addUpdate(text(directChat(user), `hello msg-${n}`, { from: user }));
      }
    };
    const allAnswered = (count: number) => () => answerCounts().slice(0, count).every((c) => c > 0);

    const sentAt = Date.now();
    send(0, BEFORE_KILL);
    await eventually(allAnswered(BEFORE_KILL), `the first ${BEFORE_KILL} answers`, 30_000);
    const firstBatchMs = Date.now() - sentAt;

    // The holder's model stops answering, so its turns are mid-call (not between reply and record) when it dies.
    holder.llm.respondWith(() => ({ hang: true }));
    const heldBefore = holder.llm.requests.length;
    send(BEFORE_KILL, BEFORE_KILL + 150);
    // One turn per session runs at once; the rest wait in the holder's queue.
    await eventually(() => holder.llm.requests.length >= heldBefore + 8, "the holder to be mid-turn", 10_000);
    const killedAt = Date.now();
    await holder.process.stop("SIGKILL");
    send(BEFORE_KILL + 150, TOTAL);

    const survivors = replicas.filter((r) => r !== holder);
    const acquired = await Promise.race(
      survivors.map((r) => r.process.waitForLog((l) => l.msg?.startsWith("lease acquired") === true, "a takeover", 15_000).then((line) => ({ r, line }))),
    );
    const takeoverMs = acquired.line.time - killedAt;
    expect(takeoverMs).toBeLessThan(10_000);
    expect(await holderOf(survivors)).toBe(acquired.r);

    await eventually(allAnswered(TOTAL), `all ${TOTAL} answers`, 40_000);
    const recoveredMs = Date.now() - killedAt;
    expect(answerCounts().flatMap((count, n) => (count === 1 ? [] : [`msg-${n} answered ${count} times`]))).toEqual([]);
    expect(fake.conflicts()).toBe(0);
    console.info(
      `replica failover: startup ${startupMs} ms, first ${BEFORE_KILL} answered in ${firstBatchMs} ms, takeover ${takeoverMs} ms after SIGKILL, all ${TOTAL} answered once ${recoveredMs} ms after it`,
    );
  });
});
