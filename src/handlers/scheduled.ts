/**
 * Scheduled tasks and reminders: schedule_task, list_scheduled_tasks, cancel_scheduled_task,
 * update_scheduled_task, trigger_scheduled_task, query_task_executions. The model passes times as the user said
 * them ({in}, {at}, {every}, {cron}); the scheduler resolves them and every result shows times in the user's zone.
 */
import { z } from "zod";
import type { ChannelName, ChatType } from "../core/types.js";
import { isOwnerBy, userActor } from "../scheduler/access.js";
import { confirmationOf, runView, taskView } from "../scheduler/render.js";
import { TaskError, type Scheduler, type TaskErrorCode } from "../scheduler/scheduler.js";
import type { Actor } from "../scheduler/types.js";
import { whenSchema } from "../scheduler/when-schema.js";
import {
  implementTool,
  ToolError,
  withToolErrors,
  type ToolContext,
  type ToolErrorCode,
  type ToolHandlerSpec,
} from "../core/tools.js";

const CATEGORY = "Scheduled Tasks";
const taskId = z.string().trim().min(1).max(40).describe("The task id, e.g. k3m9x2ab");
const dateTime = z.string().trim().min(1).max(60);

const WHEN_GUIDE = [
  "`when` is exactly one of (copy what the user said; never compute times yourself):",
  '- {"in": "10m"} / {"in": "1h30m"} / {"in": "PT2H"}: once, after a delay from now;',
  '- {"at": "tomorrow 9am"} / {"at": "2026-03-28T09:00"}: once, at that local time of the user (words or ISO;',
  '  with an offset, "...T09:00+08:00", it is exact);',
  '- {"every": "2h", "start_at": "2026-03-28T09:00"}: repeatedly; start_at is optional;',
  '- {"cron": "0 9 * * 1-5", "timezone": "Asia/Shanghai"}: calendar rules; timezone defaults to the user\'s.',
];

function actorOf(ctx: ToolContext): Actor {
  return userActor(ctx.channel, ctx.senderId, isOwnerBy(ctx.permissions));
}

const ERROR_CODES: Record<TaskErrorCode, ToolErrorCode> = {
  invalid: "invalid_input",
  denied: "denied",
  not_found: "failed",
  limit: "failed",
};

/** The scheduler's refusals become tool errors the model can act on. */
function asTool<T>(work: () => Promise<T>): Promise<T> {
  return withToolErrors(TaskError, ERROR_CODES, work);
}

/**
 * The reply window of a chat, in minutes, where its platform accepts only replies to a user's message (QQ);
 * undefined where there is none.
 */
export type ReplyWindowOf = (channel: ChannelName, chatType: ChatType) => number | undefined;

/** What the model tells the user when a run falls outside the chat's reply window. */
function windowWarning(minutes: number | undefined, nextRunAt: number | null, now: number): { delivery_warning: string } | object {
  if (minutes === undefined || nextRunAt === null || nextRunAt - now <= minutes * 60_000) return {};
  return {
    delivery_warning:
      `This platform accepts only replies within ${minutes} minutes of the user's last message here, so a run later ` +
      "than that cannot be delivered unless the user writes again shortly before it. Tell the user so.",
  };
}

export function createScheduledHandler(scheduler: Scheduler, replyWindowOf: ReplyWindowOf = () => undefined): ToolHandlerSpec {
  const scheduleTask = implementTool(
    {
      name: "schedule_task",
      category: CATEGORY,
      shortDescription: "Set a reminder or a recurring task; the gateway resolves all times",
      description: [
        "Creates a reminder (its message is sent as is at that time) or an agent task (its prompt is run by you at",
        "that time, in a session of its own, and your answer is sent). Saying \"I will remind you\" does nothing:",
        "only this tool creates a task. Runs are delivered to this chat.",
        "",
        "When to use: the user asks to be reminded of something, or for something to be done later or regularly.",
        "",
        ...WHEN_GUIDE,
        "",
        "Caveats:",
        "- Local times are read in the user's time zone (set with /timezone), else the chat's, else the default.",
        "- The result has the task id and `next_runs` rendered in that zone, and `confirm`: tell the user that",
        "  sentence as it is. An invalid time (past, bad cron, unknown zone) is an error that says what to fix.",
        "- until (ISO date-time) and max_runs limit recurring tasks; silent sends only the content, no notices.",
        "",
        'Example: schedule_task({"name": "drink water", "message": "Time to drink water!", "when": {"in": "2m"}})',
      ].join("\n"),
      input: z.object({
        name: z.string().trim().min(1).max(100).describe("A short title, e.g. standup"),
        kind: z
          .enum(["reminder", "agent_task"])
          .default("reminder")
          .describe("reminder: send `message` as is; agent_task: run `message` as an instruction and send the answer"),
        message: z.string().trim().min(1).max(4_000).describe("The reminder text, or the agent task's instruction"),
        when: whenSchema,
        until: dateTime.optional().describe("Recurring tasks stop after this ISO date-time (local or with offset)"),
        max_runs: z.number().int().min(1).max(100_000).optional().describe("Recurring tasks stop after this many runs"),
        silent: z.boolean().default(false).describe("Send only the content: no header, no notices about failures"),
        allow_scheduling: z
          .boolean()
          .default(false)
          .describe("agent_task only: let its runs create or change tasks (only when the user asks for it)"),
      }),
      risk: "chat",
    },
    (input, ctx) =>
      asTool(async () => {
        await scheduler.requireMaySchedule(ctx.sessionKey);
        const threadId = ctx.message?.chat.threadId;
        const senderName = ctx.message?.sender.name;
        const { task, zone } = await scheduler.create(
          {
            name: input.name,
            kind: input.kind,
            text: input.message,
            when: input.when,
            until: input.until,
            maxRuns: input.max_runs,
            silent: input.silent,
            allowScheduling: input.kind === "agent_task" && input.allow_scheduling,
            target: { channel: ctx.channel, chatId: ctx.chatId, ...(threadId !== undefined ? { threadId } : {}) },
            chatType: ctx.chatType,
            creator: {
              channel: ctx.channel,
              userId: ctx.senderId,
              ...(senderName !== undefined ? { name: senderName } : {}),
              ...(ctx.message?.locale ? { locale: ctx.message.locale } : {}),
            },
            agent: ctx.agent?.id,
            permissions: ctx.permissions,
          },
          actorOf(ctx),
        );
        const now = scheduler.clock.now();
        const warning = windowWarning(replyWindowOf(ctx.channel, ctx.chatType), task.nextRunAt, now);
        return { ...taskView(task), timezone_source: zone.source, confirm: confirmationOf(task, now), ...warning };
      }),
  );

  const listTasks = implementTool(
    {
      name: "list_scheduled_tasks",
      category: CATEGORY,
      shortDescription: "List the user's active reminders and scheduled tasks with next runs",
      description: [
        "Lists the live (active or paused) tasks the current user created, soonest first, each with its id,",
        "schedule and next runs in its time zone.",
        "",
        "When to use: the user asks what reminders they have, or you need a task id to cancel or change one.",
        "",
        "Caveats: users see only their own tasks. `all: true` lists everyone's, and works only for the owner.",
        "",
        'Example: list_scheduled_tasks({})',
      ].join("\n"),
      input: z.object({ all: z.boolean().default(false).describe("Everyone's tasks (owner only)") }),
      risk: "read",
    },
    (input, ctx) =>
      asTool(async () => {
        const tasks = await scheduler.list(actorOf(ctx), { everyone: input.all });
        return { count: tasks.length, tasks: tasks.map(taskView) };
      }),
  );

  const cancelTask = implementTool(
    {
      name: "cancel_scheduled_task",
      category: CATEGORY,
      shortDescription: "Cancel one of the user's reminders or scheduled tasks by id",
      description: [
        "Cancels a live task: it will not run again. Its past runs stay queryable for a while.",
        "",
        "When to use: the user asks to delete, stop or cancel a reminder. Find the id with list_scheduled_tasks.",
        "",
        "Caveats: only the task's creator (or the owner) can cancel it; to stop it for a while, use",
        "update_scheduled_task with paused: true instead.",
        "",
        'Example: cancel_scheduled_task({"task_id": "k3m9x2ab"})',
      ].join("\n"),
      input: z.object({ task_id: taskId }),
      risk: "chat",
    },
    (input, ctx) =>
      asTool(async () => {
        const task = await scheduler.cancel(input.task_id, actorOf(ctx));
        return { task_id: task.id, name: task.name, status: task.status };
      }),
  );

  const updateTask = implementTool(
    {
      name: "update_scheduled_task",
      category: CATEGORY,
      shortDescription: "Change, pause or resume a reminder or scheduled task",
      description: [
        "Changes a live task: its name, message, times or limits, or pauses and resumes it. Only the fields",
        "given change. A new `when` replaces the schedule and is resolved like in schedule_task.",
        "",
        "When to use: the user wants a reminder at another time, with other words, or paused for a while.",
        "",
        ...WHEN_GUIDE,
        "",
        "Caveats: until and max_runs take null to remove the limit. Resuming (paused: false) clears the count",
        "of failed runs. The result shows the next runs in the task's zone; confirm them to the user.",
        "",
        'Example: update_scheduled_task({"task_id": "k3m9x2ab", "when": {"cron": "30 8 * * 1-5"}})',
      ].join("\n"),
      input: z.object({
        task_id: taskId,
        name: z.string().trim().min(1).max(100).optional(),
        message: z.string().trim().min(1).max(4_000).optional(),
        when: whenSchema.optional(),
        until: dateTime.nullable().optional().describe("ISO date-time, or null to remove"),
        max_runs: z.number().int().min(1).max(100_000).nullable().optional().describe("A number, or null to remove"),
        silent: z.boolean().optional(),
        paused: z.boolean().optional().describe("true pauses the task, false resumes it"),
      }),
      risk: "chat",
    },
    (input, ctx) =>
      asTool(async () => {
        await scheduler.requireMaySchedule(ctx.sessionKey);
        const task = await scheduler.update(input.task_id, actorOf(ctx), {
          name: input.name,
          text: input.message,
          when: input.when,
          until: input.until,
          maxRuns: input.max_runs,
          silent: input.silent,
          paused: input.paused,
        });
        return { ...taskView(task), confirm: confirmationOf(task, scheduler.clock.now()) };
      }),
  );

  const triggerTask = implementTool(
    {
      name: "trigger_scheduled_task",
      category: CATEGORY,
      shortDescription: "Run a reminder or scheduled task once now, besides its schedule",
      description: [
        "Runs a live task immediately, once: a reminder is sent, an agent task runs. Its schedule is unchanged.",
        "",
        "When to use: the user wants to test a task or get its result now.",
        "",
        "Caveats: the result is the run's record (status, receipts of the sent messages, error).",
        "",
        'Example: trigger_scheduled_task({"task_id": "k3m9x2ab"})',
      ].join("\n"),
      input: z.object({ task_id: taskId }),
      risk: "chat",
      timeoutMs: 10 * 60_000,
    },
    (input, ctx) =>
      asTool(async () => {
        await scheduler.requireMaySchedule(ctx.sessionKey);
        // Its own run holds the task's lock: triggering itself would wait for itself.
        if (ctx.sessionKey === `task:${input.task_id}`) throw new ToolError("A task cannot trigger itself from its own run.", "denied");
        const run = await scheduler.trigger(input.task_id, actorOf(ctx));
        const task = await scheduler.get(input.task_id, actorOf(ctx));
        return { task_id: task.id, run: runView(run, task.timezone) };
      }),
  );

  const queryExecutions = implementTool(
    {
      name: "query_task_executions",
      category: CATEGORY,
      shortDescription: "Show a task's past runs: when, status, receipts and errors",
      description: [
        "Returns the recorded runs of a task, newest first: the slot, whether it was delivered, missed, failed or",
        "interrupted, how late it was, the ids of the messages sent (receipts) and any error.",
        "",
        "When to use: the user asks whether a reminder went out, or why it did not.",
        "",
        "Caveats: only the task's creator (or the owner) can see them. Finished tasks stay queryable for a while.",
        "",
        'Example: query_task_executions({"task_id": "k3m9x2ab", "limit": 5})',
      ].join("\n"),
      input: z.object({ task_id: taskId, limit: z.number().int().min(1).max(50).default(10) }),
      risk: "read",
    },
    (input, ctx) =>
      asTool(async () => {
        const { task, runs } = await scheduler.runs(input.task_id, actorOf(ctx), input.limit);
        return { task: taskView(task), runs: runs.map((run) => runView(run, task.timezone)) };
      }),
  );

  const implementations = [scheduleTask, listTasks, cancelTask, updateTask, triggerTask, queryExecutions];
  return { name: "scheduled", tools: implementations };
}
