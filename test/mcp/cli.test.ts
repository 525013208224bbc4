/** `switchboard mcp ...` and doctor's MCP checks, as a user runs them, against real servers. */
import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { pino } from "pino";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { stringify } from "yaml";
import { configSchema } from "../../src/config.js";
import { formatDoctor, runDoctor } from "../../src/doctor.js";
import { everythingStdio, faultServer } from "./helpers.js";

const run = promisify(execFile);
// Each command is a fresh Node process compiling the sources with tsx, then starting a server: seconds apiece.
vi.setConfig({ testTimeout: 120_000 });
const TOKEN = "tok-cli-secret-7781";
const servers = {
  everything: everythingStdio(),
  broken: faultServer("exit-at-start"),
  faults: { ...faultServer(), env: { FAKE_MCP_TOKEN: TOKEN }, ownersOnly: true },
};

let dataDir: string;
let configPath: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "switchboard-mcp-cli-"));
  configPath = join(dataDir, "config.yaml");
  await writeFile(configPath, stringify({ dataDir, mcp: { servers } }));
});

async function cli(...args: string[]): Promise<{ code: number; stdout: string }> {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME };
  try {
    const { stdout } = await run("node", ["--import", "tsx", "src/cli.ts", "--config", configPath, "mcp", ...args], { env, timeout: 60_000 });
    return { code: 0, stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, stdout: e.stdout };
  }
}

describe("switchboard mcp", () => {
  it("tools shows a server's tools as the model sees them", async () => {
    const { code, stdout } = await cli("tools", "everything");
    expect(code).toBe(0);
    expect(stdout).toContain("### Everything Reference Server (`everything`)");
    expect(stdout).toContain("- **echo**: Echoes back the input string\n  - `message` (string, required): Message to echo");
  });

  it("call runs a tool; bad JSON, an unknown server and a server that cannot start fail with the reason", async () => {
    expect(await cli("call", "everything", "echo", '{"message":"from the shell"}')).toEqual({ code: 0, stdout: "Echo: from the shell\n" });
    const bad = await cli("call", "everything", "echo", "{message: hi}");
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("The arguments must be a JSON object");
    const unknown = await cli("call", "nope", "echo");
    expect(unknown).toEqual({ code: 1, stdout: 'No MCP server is configured as "nope". Configured: everything, broken, faults.\n' });
    const broken = await cli("call", "broken", "add", '{"a":1}');
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/^MCP server "broken": .*missing FAKE_API_KEY/);
  });

  it("call prints the server's secrets redacted; list names every server with its access", async () => {
    const { stdout } = await cli("call", "faults", "secret_env");
    expect(stdout).toBe("token=[REDACTED] llm=(none)\n");
    const list = await cli("list");
    expect(list.stdout).toMatch(/^everything \(risk exec\) stdio: .*server-everything.* stdio; /m);
    expect(list.stdout).toMatch(/^faults \(risk exec, owners only\) stdio: /m);
  });
});

describe("doctor", () => {
  it("connects to each server: OK with its tools, or FAIL with the reason; warns over the token budget", async () => {
    const config = configSchema.parse({ dataDir, mcp: { servers, promptTokenBudget: 100 } });
    const results = await runDoctor(config, pino({ level: "silent" }));
    const report = formatDoctor(results);
    expect(report).toMatch(/^OK {3}mcp:everything {3}stdio, \d+ tool\(s\): echo, /m);
    expect(report).toMatch(/^FAIL mcp:broken .*missing FAKE_API_KEY/m);
    expect(report).toMatch(/^WARN mcp:budget .*takes \d+ tokens, over mcp\.promptTokenBudget \(100\)/m);
  });
});
