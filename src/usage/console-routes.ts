/** The console's usage routes: totals of today and this month, and a report by day, person, chat, model or work. */
import { Hono } from "hono";
import { z } from "zod";
import type { Clock } from "../core/clock.js";
import { consoleError } from "../infra/http/errors.js";
import type { UsageReader } from "./ledger.js";

const reportQuery = z.object({
  by: z.enum(["user", "chat", "model", "day", "work"]).default("day"),
  since: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected a date, YYYY-MM-DD").optional(),
});

export function usageRoutes(reader: UsageReader, clock: Clock): Hono {
  const routes = new Hono();
  routes.get("/", async (c) => {
    const query = reportQuery.safeParse(c.req.query());
    if (!query.success) {
      const detail = query.error.issues.map((issue) => issue.message).join("; ");
      return consoleError(c, 400, { code: "invalid_query", detail }, detail);
    }
    const now = clock.now();
    const since = query.data.since ?? reader.monthStart(now);
    const totals = await reader.current("global", { channel: "", userId: "", chatId: "" }, now);
    return c.json({ by: query.data.by, since, totals, rows: await reader.report(query.data.by, since, now) });
  });
  return routes;
}
