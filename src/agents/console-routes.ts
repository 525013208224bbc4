/** The console's agents and routing: the owner sees the agents and the rules, and replaces the rules. */
import { Hono } from "hono";
import { consoleError } from "../infra/http/errors.js";
import { RoutingError, type Agents } from "./directory.js";

export function agentRoutes(agents: Agents): Hono {
  return new Hono()
    .get("/", (c) =>
      c.json({
        agents: agents.list().map(({ id, name, model, tools, skills, mcpServers, memory, maxDelegationDepth }) => ({
          ...{ id, name, model, tools, skills, mcpServers, memory, maxDelegationDepth },
        })),
        routing: agents.routing(),
      }),
    )
    .put("/routing", async (c) => {
      const body = (await c.req.json().catch(() => undefined)) as { rules?: unknown } | undefined;
      if (!body || !("rules" in body)) return consoleError(c, 400, { code: "rules_missing" }, 'Send {"rules": [...]}, or {"rules": null} for the configured routing');
      try {
        return c.json({ rules: await agents.setRouting(body.rules) });
      } catch (err) {
        if (err instanceof RoutingError) return consoleError(c, 400, { code: "invalid_input", detail: err.message }, err.message);
        throw err;
      }
    });
}
