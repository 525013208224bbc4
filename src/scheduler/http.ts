/**
 * The operator's task routes on the gateway's HTTP API, behind its bearer token: what `switchboard tasks run`
 * and `tasks cancel` call, since only the running gateway has the channels a run delivers through.
 *   POST /api/v1/tasks/:id/run     runs the task once now; answers the run's record
 *   POST /api/v1/tasks/:id/cancel  cancels it; answers the task
 */
import type { Context } from "hono";
import { jsonError } from "../infra/http/errors.js";
import type { HttpServer } from "../infra/http/server.js";
import { TaskError, type Scheduler } from "./scheduler.js";
import type { Actor } from "./types.js";

const OPERATOR: Actor = { kind: "operator" };

export function registerTaskRoutes(http: HttpServer, scheduler: Scheduler): void {
  const { app, auth } = http;
  app.post("/api/v1/tasks/:id/run", auth, (c) => answerTaskCall(c, async () => ({ run: await scheduler.trigger(c.req.param("id"), OPERATOR) })));
  app.post("/api/v1/tasks/:id/cancel", auth, (c) => answerTaskCall(c, async () => ({ task: await scheduler.cancel(c.req.param("id"), OPERATOR) })));
}

/** The call's result as JSON; a TaskError as 404 (not found) or 409, with its code. */
export async function answerTaskCall(c: Context, work: () => Promise<object>): Promise<Response> {
  try {
    return c.json(await work());
  } catch (err) {
    if (!(err instanceof TaskError)) throw err;
    return jsonError(c, err.code === "not_found" ? 404 : 409, err.code, err.message);
  }
}
