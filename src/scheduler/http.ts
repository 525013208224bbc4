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

/** How a route answers the scheduler's refusal of the call about task `id`. */
export type TaskRefusalAnswer = (c: Context, id: string, err: TaskError) => Response;

export function registerTaskRoutes(http: HttpServer, scheduler: Scheduler): void {
  const { app, auth } = http;
  app.post("/api/v1/tasks/:id/run", auth, (c) =>
    answerTaskCall(c, c.req.param("id"), async (id) => ({ run: await scheduler.trigger(id, OPERATOR) }), schedulerCode),
  );
  app.post("/api/v1/tasks/:id/cancel", auth, (c) =>
    answerTaskCall(c, c.req.param("id"), async (id) => ({ task: await scheduler.cancel(id, OPERATOR) }), schedulerCode),
  );
}

/** The result of the call about task `id` as JSON; a TaskError as `refused` answers it. */
export async function answerTaskCall(
  c: Context,
  id: string,
  work: (id: string) => Promise<object>,
  refused: TaskRefusalAnswer,
): Promise<Response> {
  try {
    return c.json(await work(id));
  } catch (err) {
    if (!(err instanceof TaskError)) throw err;
    return refused(c, id, err);
  }
}

/** The scheduler's own code (not_found 404; denied, invalid, limit 409): what scripts calling this API read. */
const schedulerCode: TaskRefusalAnswer = (c, _id, err) => jsonError(c, err.code === "not_found" ? 404 : 409, err.code, err.message);
