/** The `scheduler` section of the configuration. Every field has a default, so `scheduler: {}` works. */
import { z } from "zod";

const positive = z.number().int().positive();

export const schedulerConfigSchema = z
  .strictObject({
    /** Off: no reminders or scheduled tasks (the tools and commands are not offered). */
    enabled: z.boolean().default(true),
    /** A one-shot task found overdue (after downtime) is still delivered, marked late, up to this many minutes. */
    gracePeriodMinutes: positive.default(360),
    /** Recurring slots missed while the gateway was down (or stalled): none = skip them; latest = run the latest one once. */
    missedRecurring: z.enum(["none", "latest"]).default("none"),
    /** Live (active or paused) tasks one user may have; the owner is exempt. */
    maxActivePerUser: positive.default(50),
    /** Shortest interval of a recurring task, in seconds. */
    minIntervalSeconds: positive.default(60),
    /** Consecutive failed runs after which a recurring task is paused and its creator told. */
    pauseAfterFailures: positive.default(5),
    /** Runs delivered at the same time; more due at once wait their turn. */
    maxConcurrentRuns: z.number().int().min(1).max(1_000).default(16),
    /** Run records kept per task (query_task_executions, switchboard tasks runs). */
    runsKept: z.number().int().min(1).max(1_000).default(50),
    /** How long finished tasks and their runs stay queryable, in days. */
    keepFinishedDays: positive.default(30),
    /** How often the scheduler looks for tasks created or changed by other replicas or the CLI, in ms. */
    syncIntervalMs: positive.default(5_000),
  })
  .prefault({});

export type SchedulerConfig = z.output<typeof schedulerConfigSchema>;
