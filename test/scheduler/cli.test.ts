import { createServer } from "node:net";
import { Command } from "commander";
import { afterEach, describe, expect, it } from "vitest";
import { registerTaskCommands, type TasksCliSetup } from "../../src/scheduler/cli.js";
import { createStore } from "../../src/infra/store/index.js";
import { openChat, startTestGateway, type TestGateway } from "../e2e/harness.js";
import { silentLog, testConfig } from "./helpers.js";
import { schedulerFeature } from "../../src/features/scheduler.js";

let t: TestGateway | undefined;
afterEach(async () => {
  process.exitCode = undefined;
  await t?.close();
  t = undefined;
});

/** Runs `switchboard tasks ...args` against the data dir of `gw`; `api` is where it looks for the gateway. */
async function cli(gw: TestGateway, args: string[], api = gw.url) {
  const lines: string[] = [];
  const program = new Command().exitOverride();
  registerTaskCommands(program, {
    setup: async (): Promise<TasksCliSetup> => ({
      config: testConfig(),
      defaultTimezone: "UTC",
      store: await createStore({ url: null, dataDir: gw.config.dataDir, log: silentLog }),
      api: { url: api, token: null },
      log: silentLog,
    }),
    out: (line) => lines.push(line),
  });
  await program.parseAsync(["tasks", ...args], { from: "user" });
  const exitCode = process.exitCode;
  process.exitCode = undefined;
  return { output: lines.join("\n"), exitCode };
}

/** A port nothing listens on: the gateway is "not running". */
async function closedPort(): Promise<string> {
  const server = createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

describe("switchboard tasks", () => {
  it("list, run (through the running gateway), runs and cancel", async () => {
    t = await startTestGateway({}, { withLlm: false });
    const set = await t.post({ chatId: "cli", userId: "alice", text: "/remind every day at 9:00 stand up" });
    const id = /\/cancel (\w+)/.exec(set.body.replies?.[0]?.text ?? "")![1]!;

    const list = await cli(t, ["list"]);
    expect(list.output).toMatch(new RegExp(`^${id}  reminder "stand up": next \\w+ \\d{4}-\\d\\d-\\d\\d 09:00 \\(UTC, GMT\\+00:00\\), cron "0 9 \\* \\* \\*" \\(UTC\\)  \\[by web:local\\]\\n1 live task\\(s\\)\\.$`));

    const ran = await cli(t, ["run", id]);
    expect(ran.output).toMatch(new RegExp(`^Ran "stand up" \\(${id}\\): .* delivered \\(run by hand\\), 1 attempt, message \\S+$`));
    const chat = await openChat(t.url, "cli", "alice");
    const history = chat.frames.find((f) => f.type === "history") as { messages: Array<{ role: string; text: string }> };
    expect(history.messages.at(-1)).toMatchObject({ role: "bot", text: "stand up" });
    chat.close();

    const runs = await cli(t, ["runs", id]);
    expect(runs.output.split("\n")).toEqual([expect.stringContaining(`${id}  reminder "stand up"`), expect.stringMatching(/^ {2}.*delivered \(run by hand\)/)]);

    const cancelled = await cli(t, ["cancel", id]);
    expect(cancelled.output).toBe(`Cancelled "stand up" (${id}).`);
    expect((await cli(t, ["list"])).output).toBe("0 live task(s).");
    expect(await cli(t, ["run", id])).toEqual({ output: expect.stringMatching(/already ended \(cancelled\)/), exitCode: 1 });
  });

  it("cancel works in the store when no gateway runs; run says the gateway is needed; unknown ids are reported", async () => {
    t = await startTestGateway({}, { withLlm: false });
    const set = await t.post({ chatId: "cli", userId: "alice", text: "/remind in 2h water" });
    const id = /\/cancel (\w+)/.exec(set.body.replies?.[0]?.text ?? "")![1]!;
    const nowhere = await closedPort();

    expect(await cli(t, ["run", id], nowhere)).toEqual({ output: `No gateway answers at ${nowhere}: start it (switchboard start) to run tasks.`, exitCode: 1 });
    expect(await cli(t, ["cancel", id], nowhere)).toEqual({ output: `Cancelled "water" (${id}).`, exitCode: undefined });
    expect(await cli(t, ["runs", "nosuchid"])).toEqual({ output: expect.stringMatching(/^No task "nosuchid"/), exitCode: 1 });
    // The running gateway sees the cancellation at its next sync and no longer holds the task.
    await t.gateway.feature(schedulerFeature)!.scheduler!.sync();
    expect(t.gateway.feature(schedulerFeature)!.scheduler!.armed.due).toBe(0);
  });

  it("the task API answers with the scheduler's own codes, which scripts tell apart", async () => {
    t = await startTestGateway({}, { withLlm: false });
    const set = await t.post({ chatId: "cli", userId: "alice", text: "/remind in 2h water" });
    const id = /\/cancel (\w+)/.exec(set.body.replies?.[0]?.text ?? "")![1]!;
    const call = async (path: string) => {
      const res = await fetch(`${t!.url}/api/v1/tasks/${path}`, { method: "POST" });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    expect(await call("nosuchid/run")).toEqual({ status: 404, body: { error: "not_found", message: expect.stringMatching(/^No task "nosuchid"/) } });
    expect((await call(`${id}/cancel`)).status).toBe(200);
    expect(await call(`${id}/run`)).toEqual({ status: 409, body: { error: "invalid", message: expect.stringMatching(/already ended \(cancelled\)/) } });
  });
});
