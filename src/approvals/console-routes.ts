/** The console's approvals: the requests waiting, the latest decisions, and an owner's approve or deny. */
import { Hono } from "hono";
import { jsonError } from "../infra/http/errors.js";
import type { Clock } from "../core/clock.js";
import type { ApprovalRequests } from "./requests.js";

/** Who the decision log names for a decision made in the console (behind the owner's token). */
export const CONSOLE_ACTOR = "console";

export function approvalRoutes(requests: ApprovalRequests, clock: Clock): Hono {
  const routes = new Hono();
  routes.get("/", async (c) => c.json({ pending: await requests.pending(), decided: (await requests.recentDecisions()).reverse() }));
  for (const [path, decision] of [["approve", "approved"], ["deny", "denied"]] as const) {
    routes.post(`/:id/${path}`, async (c) => {
      const id = c.req.param("id");
      const request = await requests.get(id);
      if (!request) return jsonError(c, 404, "not_found", `There is no approval request ${id}`);
      const decided = await requests.decide(id, decision, CONSOLE_ACTOR, clock.now());
      if (!decided) return jsonError(c, 409, "already_decided", `The request ${id} was already answered (${request.status})`);
      return c.json({ request: decided });
    });
  }
  return routes;
}
