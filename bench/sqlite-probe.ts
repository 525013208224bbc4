/** Counts the SQL statements better-sqlite3 runs in this process (each prepared statement's all, get or run). */
import Database from "better-sqlite3";

/** Starts counting; `count` grows with every statement run from now on. */
export function countSqlStatements(): { readonly count: number } {
  const counter = { count: 0 };
  const probe = new Database(":memory:");
  const proto = Object.getPrototypeOf(probe.prepare("SELECT 1")) as Record<"all" | "run" | "get", (...args: unknown[]) => unknown>;
  probe.close();
  for (const method of ["all", "run", "get"] as const) {
    const original = proto[method];
    proto[method] = function (this: unknown, ...args: unknown[]) {
      counter.count += 1;
      return original.apply(this, args);
    };
  }
  return counter;
}
