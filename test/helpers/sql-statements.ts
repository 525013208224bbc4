/**
 * The SQL text of every statement better-sqlite3 runs in this process while recording (each prepared statement's
 * all, get or run), to count what a path costs the store.
 */
import Database from "better-sqlite3";

type Method = "all" | "get" | "run";

export interface SqlRecording {
  readonly sources: string[];
  /** How many statements began with `prefix`. */
  count(prefix: string): number;
  stop(): void;
}

export function recordSql(): SqlRecording {
  const sources: string[] = [];
  const probe = new Database(":memory:");
  const proto = Object.getPrototypeOf(probe.prepare("SELECT 1")) as Record<Method, (...args: unknown[]) => unknown>;
  probe.close();
  const originals = { all: proto.all, get: proto.get, run: proto.run };
  for (const method of ["all", "get", "run"] as const) {
    proto[method] = function (this: { source: string }, ...args: unknown[]) {
      sources.push(this.source);
      return originals[method].apply(this, args);
    };
  }
  return {
    sources,
    count: (prefix) => sources.filter((source) => source.startsWith(prefix)).length,
    stop: () => Object.assign(proto, originals),
  };
}
