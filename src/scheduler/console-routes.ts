/** The console's scheduled-task routes: list, runs, cancel, run now, pause and resume, as the operator. */
import { Hono } from "hono";
import { consoleError } from "../infra/http/errors.js";
import { answerTaskCall } from "./http.js";
import type { Scheduler } from "./scheduler.js";
import type { Actor } from "./types.js";

const OPERATOR: Actor = { kind: "operator" };
const RUNS_SHOWN = 20;

export function taskRoutes(scheduler: Scheduler | null): Hono {
  const tasks = new Hono();
  tasks.use(async (c, next) => {
    if (!scheduler) return consoleError(c, 404, { code: "scheduler_off" }, "The scheduler is turned off (scheduler.enabled)");
    await next();
  });
  const s = (): Scheduler => scheduler!;
  tasks.get("/", async (c) => c.json({ tasks: await s().list(OPERATOR, { everyone: true }) }));
  tasks.get("/:id/runs", (c) => answerTaskCall(c, c.req.param("id"), async (id) => ({ runs: (await s().runs(id, OPERATOR, RUNS_SHOWN)).runs })));
  tasks.post("/:id/cancel", (c) => answerTaskCall(c, c.req.param("id"), async (id) => ({ task: await s().cancel(id, OPERATOR) })));
  tasks.post("/:id/run", (c) => answerTaskCall(c, c.req.param("id"), async (id) => ({ run: await s().trigger(id, OPERATOR) })));
  tasks.post("/:id/pause", (c) => answerTaskCall(c, c.req.param("id"), async (id) => ({ task: await s().update(id, OPERATOR, { paused: true }) })));
  tasks.post("/:id/resume", (c) => answerTaskCall(c, c.req.param("id"), async (id) => ({ task: await s().update(id, OPERATOR, { paused: false }) })));
  return tasks;
}
