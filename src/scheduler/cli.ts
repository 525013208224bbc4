/**
 * `switchboard tasks list | runs ID | run ID | cancel ID`. Listing reads the store directly. Running a task needs
 * the channels, so `run` asks the running gateway over its HTTP API; so does `cancel`, and only when no gateway
 * answers does it cancel in the store itself (then nobody else is writing to it).
 */
import type { Outbound } from "../core/outbound.js";
import { SendError } from "../core/send-error.js";
import type { Command } from "commander";
import type { GatewayApi } from "../infra/http/gateway-api.js";
import type { Logger } from "../infra/log.js";
import type { Store } from "../infra/store/types.js";
import type { SchedulerConfig } from "./config.js";
import { runLine, taskLine } from "./render.js";
import { Scheduler, TaskError } from "./scheduler.js";
import { ZonePreferences } from "./zone-preferences.js";
import type { Actor, RunRecord } from "./types.js";

export interface TasksCliSetup {
  config: SchedulerConfig;
  defaultTimezone: string;
  /** Opened for the command; closed when it is done. */
  store: Store;
  /** The running gateway's API: its base URL and bearer token. */
  api: GatewayApi;
  log: Logger;
}

export interface TasksCliDeps {
  /** Called when a command runs, after the program has parsed its global options (--config). */
  setup(): Promise<TasksCliSetup>;
  out?: (line: string) => void;
}

const OPERATOR: Actor = { kind: "operator" };

/** The CLI only reads and writes tasks; the running gateway is what sends. */
const offline = (): Promise<never> => Promise.reject(new SendError("the CLI does not send; the running gateway does", { kind: "unavailable" }));
const OFFLINE: Outbound = { sendText: offline, sendTextCounted: offline, deliverText: offline, sendFile: offline };

export function registerTaskCommands(program: Command, deps: TasksCliDeps): void {
  const out = deps.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const tasks = program.command("tasks").description("list, inspect, run and cancel scheduled tasks and reminders");

  /** Runs `work` with a scheduler over the store (not started: it only reads and writes tasks). */
  const withScheduler = async (work: (scheduler: Scheduler, setup: TasksCliSetup) => Promise<void>): Promise<void> => {
    const setup = await deps.setup();
    const scheduler = new Scheduler({
      config: setup.config,
      zones: new ZonePreferences(setup.store, setup.defaultTimezone),
      store: setup.store,
      log: setup.log,
      outbound: OFFLINE,
      agent: null,
      workspaceOf: () => "",
    });
    try {
      await work(scheduler, setup);
    } catch (err) {
      if (!(err instanceof TaskError)) throw err;
      out(err.message);
      process.exitCode = 1;
    } finally {
      await setup.store.close();
    }
  };

  tasks
    .command("list")
    .description("list every live task, soonest first")
    .action(() =>
      withScheduler(async (scheduler) => {
        const all = await scheduler.list(OPERATOR, { everyone: true });
        for (const task of all) out(`${taskLine(task)}  [by ${task.creator.channel}:${task.creator.userId}]`);
        out(`${all.length} live task(s).`);
      }),
    );

  tasks
    .command("runs")
    .argument("<id>", "the task id")
    .option("-n, --limit <count>", "how many runs, newest first", "20")
    .description("show a task's recorded runs: status, lateness, receipts, errors")
    .action((id: string, opts: { limit: string }) =>
      withScheduler(async (scheduler) => {
        const { task, runs } = await scheduler.runs(id, OPERATOR, Math.max(1, Number(opts.limit) || 20));
        out(taskLine(task));
        for (const run of runs) out(`  ${runLine(run, task.timezone)}`);
        if (runs.length === 0) out("  no runs yet");
      }),
    );

  tasks
    .command("run")
    .argument("<id>", "the task id")
    .description("run a task once now, through the running gateway")
    .action((id: string) =>
      withScheduler(async (scheduler, setup) => {
        const reply = await callGateway(setup.api, `/api/v1/tasks/${encodeURIComponent(id)}/run`);
        if (reply === null) {
          out(`No gateway answers at ${setup.api.url}: start it (switchboard start) to run tasks.`);
          process.exitCode = 1;
          return;
        }
        const run = (reply.body as { run?: RunRecord }).run;
        if (!run) return gatewayRefused(reply, out);
        const task = await scheduler.get(id, OPERATOR);
        out(`Ran "${task.name}" (${task.id}): ${runLine(run, task.timezone)}`);
      }),
    );

  tasks
    .command("cancel")
    .argument("<id>", "the task id")
    .description("cancel a task")
    .action((id: string) =>
      withScheduler(async (scheduler, setup) => {
        const reply = await callGateway(setup.api, `/api/v1/tasks/${encodeURIComponent(id)}/cancel`);
        if (reply !== null && reply.status !== 200) return gatewayRefused(reply, out);
        const task = reply === null ? await scheduler.cancel(id, OPERATOR) : await scheduler.get(id, OPERATOR);
        out(`Cancelled "${task.name}" (${task.id}).`);
      }),
    );
}

interface GatewayReply {
  status: number;
  body: unknown;
}

/** POSTs to the gateway; null when nothing listens there (connection refused). */
async function callGateway(api: TasksCliSetup["api"], path: string): Promise<GatewayReply | null> {
  try {
    const response = await fetch(`${api.url}${path}`, {
      method: "POST",
      headers: api.token ? { authorization: `Bearer ${api.token}` } : {},
      signal: AbortSignal.timeout(10 * 60_000),
    });
    return { status: response.status, body: (await response.json().catch(() => null)) as unknown };
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    if (code === "ECONNREFUSED") return null;
    throw err;
  }
}

function gatewayRefused(reply: GatewayReply, out: (line: string) => void): void {
  const message = (reply.body as { message?: string } | null)?.message ?? `HTTP ${reply.status}`;
  out(message);
  process.exitCode = 1;
}
