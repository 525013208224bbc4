/** The `switchboard` command as a user runs it: a real child process on the TypeScript sources (tsx). */
import { execFile, spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { createInterface } from "node:readline";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI } from "../fakes/openai-server.js";

const run = promisify(execFile);
const CLI = ["--import", "tsx", "src/cli.ts"];

let dataDir: string;
let fake: FakeOpenAI;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "switchboard-cli-"));
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NO_PROXY: "127.0.0.1", SWITCHBOARD_DATA_DIR: dataDir };
  return { ...env, ...extra };
}

async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run("node", [...CLI, ...args], { env: cleanEnv(env), timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("switchboard CLI", () => {
  it("config show prints the configuration with secrets redacted", async () => {
    const { code, stdout } = await cli(["config", "show"], { LLM_API_KEY: "sk-very-secret-value", TELEGRAM_BOT_TOKEN: "123456:ABCDEF" });
    expect(code).toBe(0);
    expect(stdout).toContain("apiKey: \"[REDACTED]\"");
    expect(stdout).not.toContain("sk-very-secret-value");
    expect(stdout).not.toContain("123456:ABCDEF");
    expect(stdout).toContain(`dataDir: ${dataDir}`);
  });

  it("an invalid configuration stops with one line per problem and exit code 2", async () => {
    const { code, stderr } = await cli(["config", "show"], { SWITCHBOARD_PORT: "eighty", LLM_PROVIDER: "gpt" });
    expect(code).toBe(2);
    expect(stderr).toContain('http.port (from SWITCHBOARD_PORT) = "eighty": expected number');
    expect(stderr).toContain('llm.provider (from LLM_PROVIDER) = "gpt": expected one of');
  });

  it("doctor reports OK per component, and FAIL with the fix for a dead LLM endpoint", { timeout: 60_000 }, async () => {
    fake.respondWith(() => ({ text: "pong" }));
    const healthy = await cli(["doctor"], { LLM_BASE_URL: fake.url, LLM_MODEL: "fake-model", LLM_API_KEY: "sk-doctor" });
    expect(healthy.code).toBe(0);
    expect(healthy.stdout).toMatch(/^OK +config/m);
    expect(healthy.stdout).toMatch(/^OK +store +sqlite/m);
    expect(healthy.stdout).toMatch(/^OK +llm +openai-compatible fake-model answered \(pong\)/m);
    expect(healthy.stdout).toMatch(/^OK +channel:web/m);

    const dead = await cli(["doctor"], { LLM_BASE_URL: "http://127.0.0.1:9/v1", LLM_MODEL: "fake-model" });
    expect(dead.code).toBe(1);
    expect(dead.stdout).toMatch(/^FAIL llm/m);
    expect(dead.stdout).toMatch(/fix: check LLM_BASE_URL/);
  });

  it("prints its version", async () => {
    const { code, stdout } = await cli(["--version"]);
    expect(code).toBe(0);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("start serves until SIGTERM (status asks it, a second start is refused), then shuts down with exit code 0", { timeout: 90_000 }, async () => {
    const child = spawn("node", [...CLI, "start"], { env: cleanEnv({ SWITCHBOARD_PORT: "0" }), stdio: ["ignore", "pipe", "pipe"] });
    const lines = createInterface({ input: child.stdout });
    const records: Array<Record<string, unknown>> = [];
    const up = new Promise<string>((resolve, reject) => {
      lines.on("line", (line) => {
        const record = JSON.parse(line) as Record<string, unknown>;
        records.push(record);
        if (record.msg === "switchboard is up") resolve(String(record.url));
      });
      child.once("exit", (code) => reject(new Error(`exited early with ${code}`)));
    });
    const url = await up;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const port = new URL(url).port;
    const status = await cli(["status"], { SWITCHBOARD_PORT: port });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^READY http:\/\/127\.0\.0\.1:\d+\n/);
    expect(status.stdout).toContain("OK   store: sqlite");
    // A second gateway on the same SQLite data dir is refused, saying why.
    const second = await cli(["start"], { SWITCHBOARD_PORT: "0" });
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain("Another gateway is already running on the data dir");
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(records.map((r) => r.msg)).toContain("stopped");
  });
});
