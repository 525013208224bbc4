/** Counts and times the SQL statements better-sqlite3 runs in this process (each prepared statement's all, get or run). */
import Database from "better-sqlite3";

/** Statements of one SQL text: how many ran, and the microseconds they took together (synchronous calls: CPU time, in effect). */
export interface StatementTimes {
  count: number;
  micros: number;
}

export interface SqlProbe {
  /** Every statement run from now on. */
  readonly count: number;
  /** The same, by SQL text. */
  readonly bySql: ReadonlyMap<string, StatementTimes>;
}

/** Starts counting; `count` grows with every statement run from now on. */
export function countSqlStatements(): SqlProbe {
  const bySql = new Map<string, StatementTimes>();
  const probe = { count: 0, bySql };
  const db = new Database(":memory:");
  const proto = Object.getPrototypeOf(db.prepare("SELECT 1")) as Record<"all" | "run" | "get", (...args: unknown[]) => unknown>;
  db.close();
  for (const method of ["all", "run", "get"] as const) {
    const original = proto[method];
    proto[method] = function (this: { source: string }, ...args: unknown[]) {
      probe.count += 1;
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        let times = bySql.get(this.source);
        if (!times) bySql.set(this.source, (times = { count: 0, micros: 0 }));
        times.count += 1;
        times.micros += (performance.now() - started) * 1_000;
      }
    };
  }
  return probe;
}
