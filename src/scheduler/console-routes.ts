/** The console's scheduled-task routes: list, runs, cancel, run now, pause and resume, as the operator. */
import { Hono } from "hono";
import { jsonError } from "../infra/http/errors.js";
import { answerTaskCall } from "./http.js";
import type { Scheduler } from "./scheduler.js";
import type { Actor } from "./types.js";

const OPERATOR: Actor = { kind: "operator" };
const RUNS_SHOWN = 20;

export function taskRoutes(scheduler: Scheduler | null): Hono {
  const tasks = new Hono();
  tasks.use(async (c, next) => {
    if (!scheduler) return jsonError(c, 404, "scheduler_off", "The scheduler is turned off (scheduler.enabled)");
    await next();
  });
  const s = (): Scheduler => scheduler!;
  tasks.get("/", async (c) => c.json({ tasks: await s().list(OPERATOR, { everyone: true }) }));
  tasks.get("/:id/runs", (c) => answerTaskCall(c, async () => ({ runs: (await s().runs(c.req.param("id"), OPERATOR, RUNS_SHOWN)).runs })));
  tasks.post("/:id/cancel", (c) => answerTaskCall(c, async () => ({ task: await s().cancel(c.req.param("id"), OPERATOR) })));
  tasks.post("/:id/run", (c) => answerTaskCall(c, async () => ({ run: await s().trigger(c.req.param("id"), OPERATOR) })));
  tasks.post("/:id/pause", (c) => answerTaskCall(c, async () => ({ task: await s().update(c.req.param("id"), OPERATOR, { paused: true }) })));
  tasks.post("/:id/resume", (c) => answerTaskCall(c, async () => ({ task: await s().update(c.req.param("id"), OPERATOR, { paused: false }) })));
  return tasks;
}
