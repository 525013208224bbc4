/** The console's approvals: the requests waiting, the latest decisions, and an owner's approve or deny. */
import { Hono } from "hono";
import { consoleError } from "../infra/http/errors.js";
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
      if (!request) return consoleError(c, 404, { code: "approval_not_found", id }, `There is no approval request ${id}`);
      const decided = await requests.decide(id, decision, CONSOLE_ACTOR, clock.now());
      if (!decided) return consoleError(c, 409, { code: "already_decided", id, status: request.status }, `The request ${id} was already answered (${request.status})`);
      return c.json({ request: decided });
    });
  }
  return routes;
}
