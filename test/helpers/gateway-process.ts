/**
 * A gateway as a real child process (`switchboard start`, on the TypeScript sources through tsx unless another
 * entry is given), configured by a JSON file, with its JSON log lines collected so tests can wait for what it says.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { EventEmitter, once } from "node:events";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { whenEmitted } from "./wait.js";

export interface LogLine {
  time: number;
  msg?: string;
  [field: string]: unknown;
}

export interface GatewayProcess {
  child: ChildProcess;
  lines: LogLine[];
  /** The first log line `match` accepts, waiting for it up to `timeoutMs`. */
  waitForLog(match: (line: LogLine) => boolean, what: string, timeoutMs: number): Promise<LogLine>;
  /** The HTTP base URL, once it logged "switchboard is up". */
  url(timeoutMs: number): Promise<string>;
  /** Sends `signal` and waits for the exit. */
  stop(signal: NodeJS.Signals): Promise<void>;
}

const FROM_SOURCES = ["--import", "tsx", "src/cli.ts"];

/** Writes `config` as JSON (which YAML reads) into `dir` and starts a gateway on it; `entry`: node's arguments before `start`. */
export async function spawnGateway(dir: string, config: object, entry: string[] = FROM_SOURCES): Promise<GatewayProcess> {
  const configPath = join(dir, "config.json");
  await writeFile(configPath, JSON.stringify(config));
  return startGateway([...entry, "start", "--config", configPath], { env: {} });
}

/** `node <args>` (a `start`) in `cwd` with only `env` beside PATH and HOME, its log collected. */
export function startGateway(args: string[], opts: { cwd?: string; env: NodeJS.ProcessEnv }): GatewayProcess {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_PROXY: "127.0.0.1", ...opts.env };
  const child = spawn("node", args, { cwd: opts.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const lines: LogLine[] = [];
  const changes = new EventEmitter();
  changes.setMaxListeners(0);
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on("line", (text) => {
      try {
        lines.push(JSON.parse(text) as LogLine);
      } catch {
        lines.push({ time: Date.now(), msg: text });
      }
      changes.emit("line");
    });
  }
  const exited = once(child, "exit");
  const waitForLog = async (match: (line: LogLine) => boolean, what: string, timeoutMs: number): Promise<LogLine> => {
    await whenEmitted(() => lines.some(match), changes, "line", timeoutMs, () => `${what}; last lines: ${lines.slice(-5).map((l) => l.msg).join(" | ")}`);
    return lines.find(match)!;
  };
  return {
    child,
    lines,
    waitForLog,
    url: async (timeoutMs) => (await waitForLog((l) => l.msg === "switchboard is up", "the gateway to start", timeoutMs)).url as string,
    stop: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
