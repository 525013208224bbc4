/**
 * Memory search over 10,000 memories of one person: warm search latency (p50/p99, the goal is p99 <= 10 ms),
 * the cold first search that loads and indexes them, adding one more, and how many prompt tokens (o200k, the
 * real tokenizer) the memory section adds to the system prompt. SQLite, and Redis when REDIS_URL is set.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os, { tmpdir } from "node:os";
import { join } from "node:path";
import { countTokens } from "gpt-tokenizer";
import { turnNotes } from "../src/agent/prompt.js";
import type { InboundMessage } from "../src/core/types.js";
import { configSchema } from "../src/config.js";
import { createLogger } from "../src/infra/log.js";
import { memoryConfigSchema } from "../src/memory/config.js";
import { createMemory, createTurnRecall } from "../src/memory/index.js";
import { MemoryRecords } from "../src/memory/memory-records.js";
import type { MemoryKind, MemoryRecord, Requester } from "../src/memory/types.js";
import { createStore, type Store } from "../src/infra/store/index.js";
import type { BenchResult } from "./types.js";

const MEMORIES = 10_000;
const SEARCHES = 2_000;
const ADDS = 20;
const PERSON: Requester = { channel: "telegram", userId: "bench-user", chatId: "bench-user", chatType: "direct" };

const SUBJECTS = ["coffee", "tennis", "python", "garden", "sister", "flight", "budget", "piano", "allergy", "marathon", "project", "kitchen", "camera", "novel", "meeting", "vacation", "doctor", "bicycle", "concert", "recipe"];
const VERBS = ["likes", "bought", "planned", "mentioned", "prefers", "finished", "started", "booked", "avoids", "repaired"];
const DETAILS = ["on weekends", "every morning", "last spring", "with friends", "for the team", "in Lisbon", "before work", "since 2019", "at home", "after dinner"];
const CHINESE = ["喜欢喝咖啡", "每周打网球", "在上海工作", "对花生过敏", "正在学钢琴", "计划去日本旅行", "周末跑马拉松", "养了一只猫"];
const QUERIES = ["coffee", "tennis weekends", "allergy doctor", "marathn", "vacat", "piano lessons since 2019", "网球", "花生过敏", "where does she work", "kitchen recipe for the team"];

function syntheticMemories(): MemoryRecord[] {
  const kinds: MemoryKind[] = ["fact", "preference", "event", "note"];
  return Array.from({ length: MEMORIES }, (_, i) => {
    const pick = <T>(list: readonly T[], salt: number): T => list[(i * 7 + salt * 13 + Math.floor(i / list.length)) % list.length]!;
    const content =
      i % 5 === 0
        ? `${pick(CHINESE, 1)}，第${i}条记录`
        : `${pick(VERBS, 2)} the ${pick(SUBJECTS, 3)} ${pick(DETAILS, 4)} (#${i}, ${pick(SUBJECTS, 5)})`;
    return {
      id: `b${i.toString(36).padStart(7, "0")}`,
      kind: kinds[i % kinds.length]!,
      content,
      scope: "user",
      author: { channel: PERSON.channel, userId: PERSON.userId },
      createdAt: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(),
      source: "tool",
    };
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const ms = (value: number): string => value.toFixed(2);
const loadAverage = (): string => (process.platform === "win32" ? "n/a" : os.loadavg()[0]!.toFixed(1));

async function measure(backend: string, store: Store): Promise<Array<Record<string, string | number>>> {
  const log = createLogger({ level: "silent", secrets: [] });
  const config = memoryConfigSchema.parse({ maxPerOwner: 100_000 });
  const timezones = { get: async () => undefined, set: async (_u: unknown, zone: string) => zone, clear: async () => undefined };
  const memory = createMemory({ store, config, log, timezones });
  await new MemoryRecords(store).update({ kind: "user", channel: PERSON.channel, userId: PERSON.userId }, (doc) => {
    doc.items = syntheticMemories();
  });

  let started = performance.now();
  await memory.engine.search(PERSON, "coffee", 5);
  const cold = performance.now() - started;

  // Wall time, and this process's CPU time: on a busy machine the wall time's tail is mostly waiting for a core.
  const latencies: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < SEARCHES; i++) {
    started = performance.now();
    const cpuStarted = process.cpuUsage();
    await memory.engine.search(PERSON, QUERIES[i % QUERIES.length]!, 10);
    const used = process.cpuUsage(cpuStarted);
    latencies.push(performance.now() - started);
    cpu.push((used.user + used.system) / 1000);
  }
  latencies.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);

  const adds: number[] = [];
  for (let i = 0; i < ADDS; i++) {
    started = performance.now();
    await memory.engine.add(PERSON, { content: `Bench addition ${i} ${randomUUID()}`, kind: "note", scope: "user" });
    adds.push(performance.now() - started);
  }
  adds.sort((a, b) => a - b);

  const tokens = await promptTokens(createTurnRecall(memory.engine, memory.profiles));
  return [
    { backend, measure: "search, warm (p50 / p99 / max)", value: `${ms(percentile(latencies, 50))} / ${ms(percentile(latencies, 99))} / ${ms(latencies.at(-1)!)} ms` },
    { backend, measure: "search, CPU time (p50 / p99)", value: `${ms(percentile(cpu, 50))} / ${ms(percentile(cpu, 99))} ms` },
    { backend, measure: "first search (load + index 10,000)", value: `${ms(cold)} ms` },
    { backend, measure: "add one (p50 / max)", value: `${ms(percentile(adds, 50))} / ${ms(adds.at(-1)!)} ms` },
    { backend, measure: "prompt tokens added (mean / max)", value: `${tokens.mean.toFixed(0)} / ${tokens.max}` },
  ];
}

/** Tokens of a turn's notes with the recalled memories and profile, minus without them, over the benchmark queries. */
async function promptTokens(recall: ReturnType<typeof createTurnRecall>): Promise<{ mean: number; max: number }> {
  const config = configSchema.parse({});
  const added: number[] = [];
  for (const text of QUERIES) {
    const message: InboundMessage = {
      id: `telegram:${randomUUID()}`,
      platformMessageId: "1",
      channel: "telegram",
      chat: { id: PERSON.chatId, type: "direct" },
      sender: { id: PERSON.userId, name: "Bench" },
      text,
      attachments: [],
      mentionsBot: true,
      receivedAt: new Date(),
    };
    const input = { message, now: new Date(), timezone: config.agent.timezone };
    const without = countTokens(turnNotes(input));
    const withMemory = countTokens(turnNotes({ ...input, recall: await recall.recall(message) }));
    added.push(withMemory - without);
  }
  return { mean: added.reduce((a, b) => a + b, 0) / added.length, max: Math.max(...added) };
}

export async function run(): Promise<BenchResult> {
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-bench-memory-"));
  const log = createLogger({ level: "silent", secrets: [] });
  const backends: Array<[string, string | null]> = [["sqlite", null]];
  if (process.env.REDIS_URL) backends.push(["redis", process.env.REDIS_URL]);
  const rows: BenchResult["rows"] = [];
  try {
    for (const [backend, url] of backends) {
      const store = await createStore({ url, dataDir, log, keyPrefix: `switchboard-bench:${randomUUID()}:` });
      try {
        rows.push(...(await measure(backend, store)));
        // Leaves nothing behind in a shared Redis.
        await new MemoryRecords(store).update({ kind: "user", channel: PERSON.channel, userId: PERSON.userId }, (doc) => void (doc.items = []));
      } finally {
        await store.close();
      }
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  return {
    name: "memory",
    workload:
      `${MEMORIES} memories of one person (1 in 5 Chinese), ${SEARCHES} searches of ${QUERIES.length} queries (words, prefixes, ` +
      `typos, Chinese), limit 10, full-text; ${ADDS} adds on top; prompt section with the default budget` +
      `; load average ${loadAverage()} on ${os.availableParallelism()} cores` +
      (process.env.REDIS_URL ? "" : "; Redis skipped (REDIS_URL not set)"),
    rows,
  };
}
