/**
 * The SQL statements better-sqlite3 runs in this process while recording (each prepared statement's all, get or run):
 * their texts in order, and per text how many ran and the microseconds they took together (synchronous calls: CPU
 * time, in effect). Tests count what a path costs the store; benchmarks time it.
 */
import Database from "better-sqlite3";

type Method = "all" | "get" | "run";

/** Statements of one SQL text. */
export interface StatementTimes {
  count: number;
  micros: number;
}

export interface SqlRecording {
  readonly sources: string[];
  /** The same, by SQL text. */
  readonly bySql: ReadonlyMap<string, StatementTimes>;
  /** How many statements began with `prefix`. */
  count(prefix: string): number;
  stop(): void;
}

export function recordSql(): SqlRecording {
  const sources: string[] = [];
  const bySql = new Map<string, StatementTimes>();
  const probe = new Database(":memory:");
  const proto = Object.getPrototypeOf(probe.prepare("SELECT 1")) as Record<Method, (...args: unknown[]) => unknown>;
  probe.close();
  const originals = { all: proto.all, get: proto.get, run: proto.run };
  for (const method of ["all", "get", "run"] as const) {
    proto[method] = function (this: { source: string }, ...args: unknown[]) {
      sources.push(this.source);
      const started = performance.now();
      try {
        return originals[method].apply(this, args);
      } finally {
        let times = bySql.get(this.source);
        if (!times) bySql.set(this.source, (times = { count: 0, micros: 0 }));
        times.count += 1;
        times.micros += (performance.now() - started) * 1_000;
      }
    };
  }
  return {
    sources,
    bySql,
    count: (prefix) => sources.filter((source) => source.startsWith(prefix)).length,
    stop: () => Object.assign(proto, originals),
  };
}
