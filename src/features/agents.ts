/**
 * Several agents in one gateway: the `agents` and `routing` sections, the directory the router asks which agent
 * answers a chat, /agent, the console's routing, and delegate_task (only where agents are configured, so a
 * gateway without them offers the model exactly the tools it did).
 */
import { agentEntries, agentProfiles, agentsConfigSchema, routingConfigSchema, routingProblems, type RouteRule } from "../agents/config.js";
import { agentCommands } from "../agents/commands.js";
import { agentRoutes } from "../agents/console-routes.js";
import { Delegation } from "../agents/delegation.js";
import { Agents } from "../agents/directory.js";
import { agentModelProblem } from "../agents/models.js";
import { DEFAULT_AGENT_ID } from "../core/agents.js";
import { createDelegationHandler } from "../handlers/system.js";
import { defineFeature } from "./module.js";

export const agentsFeature = defineFeature({
  name: "agents",
  configSchema: agentsConfigSchema,
  reads: ["routing"],
  crossChecks: (settings, core) => {
    const known = new Set([DEFAULT_AGENT_ID, ...agentEntries(settings).map(([id]) => id)]);
    // The loader hands over the whole configuration; `routing` is its own section, parsed by the routing module.
    const routing = routingConfigSchema.safeParse((core as unknown as { routing?: unknown }).routing ?? []);
    return [
      ...(routing.success ? routingProblems(routing.data, known) : []),
      ...agentEntries(settings).flatMap(([id, entry]) => agentModelProblem(id, entry.model, core.llm) ?? []),
    ];
  },
  create: async ({ settings, sections, core, store, log, turns }) => {
    const configured = agentEntries(settings).length > 0;
    const agents = new Agents(agentProfiles(settings, core.dataDir), sections.routing as RouteRule[], store, settings.maxParallelDelegations);
    const { problems } = await agents.load();
    if (problems.length > 0) log.warn({ problems }, "the routing saved in the console names agents no longer configured; using the configured routing");
    const limits = { maxSteps: settings.delegationMaxSteps, maxTokens: settings.delegationMaxTokens, historyTokenBudget: settings.delegationHistoryTokens };
    const delegation = configured && turns ? new Delegation({ turns, agents, limits }) : null;
    // A helper's steps each wait for the model and may run a tool.
    const timeoutMs = limits.maxSteps * (core.llm.timeoutMs + core.agent.toolTimeoutMs);
    const helpers = agents.list().map(({ id, name }) => ({ id, name }));
    return {
      agents,
      handlers: delegation ? [createDelegationHandler(delegation, { helpers, timeoutMs })] : [],
      commands: configured ? agentCommands(agents) : [],
      turn: { agents },
      consoleRoutes: { agents: agentRoutes(agents) },
    };
  },
});

/** `routing`: its own top-level section, read by the agents module. */
export const routingFeature = defineFeature({
  name: "routing",
  configSchema: routingConfigSchema,
});
