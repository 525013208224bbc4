/**
 * The operator's task routes on the gateway's HTTP API, behind its bearer token: what `switchboard tasks run`
 * and `tasks cancel` call, since only the running gateway has the channels a run delivers through.
 *   POST /api/v1/tasks/:id/run     runs the task once now; answers the run's record
 *   POST /api/v1/tasks/:id/cancel  cancels it; answers the task
 */
import type { Context } from "hono";
import { consoleError } from "../infra/http/errors.js";
import type { HttpServer } from "../infra/http/server.js";
import { TaskError, type Scheduler } from "./scheduler.js";
import type { Actor } from "./types.js";

const OPERATOR: Actor = { kind: "operator" };

export function registerTaskRoutes(http: HttpServer, scheduler: Scheduler): void {
  const { app, auth } = http;
  app.post("/api/v1/tasks/:id/run", auth, (c) => answerTaskCall(c, c.req.param("id"), async (id) => ({ run: await scheduler.trigger(id, OPERATOR) })));
  app.post("/api/v1/tasks/:id/cancel", auth, (c) => answerTaskCall(c, c.req.param("id"), async (id) => ({ task: await scheduler.cancel(id, OPERATOR) })));
}

/** The result of the call about task `id` as JSON; a TaskError as 404 (not found) or 409 (refused). */
export async function answerTaskCall(c: Context, id: string, work: (id: string) => Promise<object>): Promise<Response> {
  try {
    return c.json(await work(id));
  } catch (err) {
    if (!(err instanceof TaskError)) throw err;
    if (err.code === "not_found") return consoleError(c, 404, { code: "task_not_found", id }, err.message);
    return consoleError(c, 409, { code: "task_refused", detail: err.message }, err.message);
  }
}
