/** The console's scheduled-task routes: list, runs, cancel, run now, pause and resume, as the operator. */
import { Hono, type Context } from "hono";
import type { BlankEnv } from "hono/types";
import { consoleError } from "../infra/http/errors.js";
import { answerTaskCall, type TaskRefusalAnswer } from "./http.js";
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
  const call = (c: Context<BlankEnv, "/:id">, work: (id: string) => Promise<object>) => answerTaskCall(c, c.req.param("id"), work, consoleRefusal);
  tasks.get("/", async (c) => c.json({ tasks: await s().list(OPERATOR, { everyone: true }) }));
  tasks.get("/:id/runs", (c) => call(c, async (id) => ({ runs: (await s().runs(id, OPERATOR, RUNS_SHOWN)).runs })));
  tasks.post("/:id/cancel", (c) => call(c, async (id) => ({ task: await s().cancel(id, OPERATOR) })));
  tasks.post("/:id/run", (c) => call(c, async (id) => ({ run: await s().trigger(id, OPERATOR) })));
  tasks.post("/:id/pause", (c) => call(c, async (id) => ({ task: await s().update(id, OPERATOR, { paused: true }) })));
  tasks.post("/:id/resume", (c) => call(c, async (id) => ({ task: await s().update(id, OPERATOR, { paused: false }) })));
  return tasks;
}

/** A code the console's page has words for; a refusal's reason goes in its message. */
const consoleRefusal: TaskRefusalAnswer = (c, id, err) =>
  err.code === "not_found"
    ? consoleError(c, 404, { code: "task_not_found", id }, err.message)
    : consoleError(c, 409, { code: "task_refused", detail: err.message }, err.message);
