/** The scheduler's plug: reminders and tasks, their tools, commands, routes, console page and CLI. */
import { createScheduledHandler } from "../handlers/scheduled.js";
import { registerTaskCommands, registerTaskRoutes, Scheduler, schedulerCommands, schedulerConfigSchema } from "../scheduler/index.js";
import { taskRoutes } from "../scheduler/console-routes.js";
import { gatewayApiOf } from "../infra/http/gateway-api.js";
import { defineFeature } from "./module.js";

export const schedulerFeature = defineFeature({
  name: "scheduler",
  configSchema: schedulerConfigSchema,
  create: (deps) => {
    if (!deps.settings.enabled) return { scheduler: null, consoleRoutes: { tasks: taskRoutes(null) } };
    const scheduler = new Scheduler({
      config: deps.settings,
      zones: deps.zones,
      store: deps.store,
      log: deps.log,
      agent: deps.turns,
      workspaceOf: (sessionKey) => deps.workspaces.dirOf(sessionKey),
      outbound: deps.outbound,
      speechOf: (creator) => deps.speechOf(creator),
    });
    registerTaskRoutes(deps.http, scheduler);
    return {
      scheduler,
      // QQ-like platforms accept only replies within a window: schedule_task warns about runs beyond it.
      handlers: [createScheduledHandler(scheduler, (channel, chatType) => deps.channelOf(channel)?.capabilities.replyWindowMinutes?.[chatType])],
      commands: schedulerCommands(scheduler, { isOwner: deps.isOwner }),
      consoleRoutes: { tasks: taskRoutes(scheduler) },
      // Reminders that came due while the gateway was down are delivered right away.
      start: () => scheduler.start(),
      stop: (graceMs) => scheduler.stop(graceMs),
    };
  },
  cli: (program, ctx) =>
    registerTaskCommands(program, {
      setup: async () => {
        const { settings, core, log } = ctx.setup();
        return { config: settings, defaultTimezone: core.agent.timezone, store: await ctx.openStore(), api: gatewayApiOf(core.http), log };
      },
    }),
});
