/** The scheduler's public face: what the gateway, the CLI and the config schema use. */
export { schedulerConfigSchema, type SchedulerConfig } from "./config.js";
export { registerTaskCommands, type TasksCliDeps, type TasksCliSetup } from "./cli.js";
export { schedulerCommands, type SchedulerCommandsOptions } from "./commands.js";
export { registerTaskRoutes } from "./http.js";
export { Scheduler, TaskError, type NewTask, type SchedulerDeps, type TaskChange } from "./scheduler.js";
export type { Clock } from "../core/clock.js";
export type { Actor, RunRecord, TaskRecord, Trigger } from "./types.js";
