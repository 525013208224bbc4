/**
 * Store throughput: set, get and setIfAbsent per second on SQLite (and Redis when REDIS_URL is set),
 * against the same store code over an in-memory Map, so the ratio shows what the backend costs.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../src/infra/log.js";
import { createStore, type Coordinator, type Namespace } from "../src/infra/store/index.js";
import { BackendGuard } from "../src/infra/store/backend-guard.js";
import { jsonKeyv, KeyvNamespace } from "../src/infra/store/keyv-namespace.js";
import { LocalCoordinator } from "../src/infra/store/local-coordinator.js";
import type { BenchResult } from "./types.js";

const PHASE_MS = 1_000;
const CONCURRENCY = 8;
const KEYS = 1_000;
const MARKER_TTL_MS = 10_000;
/** About 200 bytes of JSON, like a small session record. */
const VALUE = { chat: "telegram:123456789", turns: 12, summary: "x".repeat(120), updatedAt: "2025-01-01T00:00:00.000Z" };

interface Subject {
  backend: string;
  values: Namespace<typeof VALUE>;
  coordinator: Coordinator;
  close(): Promise<void>;
}

/** Runs `op` from CONCURRENCY callers for PHASE_MS and returns completed calls per second. */
async function opsPerSecond(op: (i: number) => Promise<unknown>): Promise<number> {
  let calls = 0;
  const started = performance.now();
  const deadline = started + PHASE_MS;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) await op(calls++);
    }),
  );
  return calls / ((performance.now() - started) / 1000);
}

async function measure(subject: Subject): Promise<Record<string, number>> {
  const run = randomUUID();
  const set = await opsPerSecond((i) => subject.values.set(`k${i % KEYS}`, VALUE));
  const get = await opsPerSecond((i) => subject.values.get(`k${i % KEYS}`));
  const setIfAbsent = await opsPerSecond((i) => subject.coordinator.setIfAbsent(`${run}:${i}`, MARKER_TTL_MS));
  await Promise.all(Array.from({ length: KEYS }, (_, i) => subject.values.delete(`k${i}`)));
  return { set, get, setIfAbsent };
}

function memorySubject(): Subject {
  const keyv = jsonKeyv(new Map());
  const guard = new BackendGuard([]);
  return {
    backend: "memory (Map)",
    values: new KeyvNamespace(keyv, guard, "sessions", ""),
    coordinator: new LocalCoordinator(new KeyvNamespace<1>(keyv, guard, "once", "")),
    close: async () => undefined,
  };
}

async function storeSubject(backend: string, url: string | null, dataDir: string): Promise<Subject> {
  const log = createLogger({ level: "silent", secrets: [] });
  const store = await createStore({ url, dataDir, log, keyPrefix: `switchboard-bench:${randomUUID()}:` });
  return { backend, values: store.namespace("sessions"), coordinator: store.coordinator, close: () => store.close() };
}

export async function run(): Promise<BenchResult> {
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-bench-"));
  try {
    const subjects = [memorySubject(), await storeSubject("sqlite", null, dataDir)];
    if (process.env.REDIS_URL) subjects.push(await storeSubject("redis", process.env.REDIS_URL, dataDir));
    const results: Array<{ backend: string; ops: Record<string, number> }> = [];
    for (const subject of subjects) {
      try {
        results.push({ backend: subject.backend, ops: await measure(subject) });
      } finally {
        await subject.close();
      }
    }
    const baseline = results[0]!.ops;
    return {
      name: "store",
      workload:
        `${CONCURRENCY} concurrent callers, ${PHASE_MS / 1000} s per operation: set and get of a ~200-byte JSON value ` +
        `over ${KEYS} keys, setIfAbsent of new keys (${MARKER_TTL_MS / 1000} s TTL)` +
        (process.env.REDIS_URL ? "" : "; Redis skipped (REDIS_URL not set)"),
      rows: results.flatMap(({ backend, ops }) =>
        Object.entries(ops).map(([operation, perSecond]) => ({
          backend,
          operation,
          "ops/s": Math.round(perSecond),
          "vs memory": `${((perSecond / baseline[operation]!) * 100).toFixed(1)}%`,
        })),
      ),
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
