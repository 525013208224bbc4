/**
 * A bot under test for bench/telegram.bench.ts, as its own process started the way its users start it, and what
 * the kernel says it costs (/proc: CPU ticks of all its threads, resident set). Switchboard is `node dist/cli.js
 * start` with the shipped configuration (config/default.yaml, log level info, logs written to a file as a service
 * manager would) and the few settings a bench needs; the baseline is bench/telegram-baseline.ts under plain node.
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { closeSync, openSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import type { FakeTelegram } from "../test/fakes/telegram/server.js";

export type SubjectKind = "grammy" | "switchboard";

/** CPU time (user + system, every thread) and resident set of a process, from /proc. */
export interface ProcessStats {
  cpuMs: number;
  rss: number;
}

const baselineSource = fileURLToPath(new URL("./telegram-baseline.ts", import.meta.url));
const baselineScript = fileURLToPath(new URL("./telegram-baseline.mjs", import.meta.url));
export const compiledCli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

/**
 * What a bench changes in the shipped configuration: everyone may write (the default answers strangers with a
 * pairing code) and nobody is rate-limited (one user's 500 messages would meet the limit of 20 a minute).
 */
const BENCH_CONFIG = `access:
  dmPolicy: open
  limits:
    perUser: { messages: 1000000, windowSeconds: 60 }
    perChat: { messages: 1000000, windowSeconds: 60 }
`;

/** Next to the source, so that its imports resolve from the package's node_modules; plain JavaScript for plain node. */
export function writeBaselineScript(): void {
  const { outputText } = ts.transpileModule(readFileSync(baselineSource, "utf8"), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2023 },
    fileName: baselineSource,
  });
  writeFileSync(baselineScript, outputText);
}

const CLOCK_TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());

/** Linux only: the fields after the command name of /proc/<pid>/stat are utime (14th) and stime (15th) in ticks. */
export function processStats(pid: number): ProcessStats {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return { cpuMs: (ticks * 1000) / CLOCK_TICKS_PER_SECOND, rss: Number(kib) * 1024 };
}

export interface SubjectOptions {
  kind: SubjectKind;
  tg: FakeTelegram;
  llmUrl: string;
  /** Switchboard's command (default dist/cli.js): another build's, to compare versions. */
  cli?: string;
  /** Node's flags for Switchboard (none by default, as `node dist/cli.js start`). */
  nodeFlags?: string[];
  /** YAML added to Switchboard's configuration, to compare settings (BENCH_TG_CONFIG). */
  extraConfig?: string;
  /** Writes Switchboard's heap snapshots here on SIGUSR2 (`--heapsnapshot-signal`). */
  heapDir?: string;
}

/** A running bot, ready once it has made its first getUpdates. */
export class Subject {
  private constructor(
    private readonly child: ChildProcess,
    private readonly dataDir: string,
    private readonly logFile: string,
    private readonly heapDir: string | undefined,
    /** From the spawn to its first getUpdates, in ms: its cold start. */
    readonly startMs: number,
  ) {}

  static async start(opts: SubjectOptions): Promise<Subject> {
    const dataDir = await mkdtemp(join(tmpdir(), `switchboard-bench-${opts.kind}-`));
    const configFile = join(dataDir, "bench.yaml");
    writeFileSync(configFile, `${BENCH_CONFIG}${opts.extraConfig ?? ""}\n`);
    const heapFlags = opts.heapDir ? ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${opts.heapDir}`] : [];
    const args =
      opts.kind === "grammy"
        ? [baselineScript]
        : [...(opts.nodeFlags ?? []), ...heapFlags, opts.cli ?? compiledCli, "start", "--config", configFile];
    const logFile = join(dataDir, "stdout.log");
    const log = openSync(logFile, "w");
    const pollsBefore = opts.tg.callsOf("getUpdates").length;
    const spawned = performance.now();
    const child = spawn(process.execPath, args, {
      cwd: dataDir,
      env: {
        PATH: process.env.PATH,
        HOME: dataDir,
        TELEGRAM_BOT_TOKEN: opts.tg.token,
        TELEGRAM_API_ROOT: opts.tg.url,
        LLM_BASE_URL: opts.llmUrl,
        LLM_API_KEY: "sk-bench",
        LLM_MODEL: "fake-model",
        SWITCHBOARD_DATA_DIR: dataDir,
        SWITCHBOARD_PORT: "0",
      },
      stdio: ["ignore", log, "inherit"],
    });
    closeSync(log);
    // A bench stopped half-way leaves no bot polling on.
    process.once("exit", () => child.kill());
    const exited = once(child, "exit").then(([code]) => {
      throw new Error(`the ${opts.kind} bench subject exited (code ${String(code)}) before its first getUpdates; its log: ${logFile}`);
    });
    await Promise.race([opts.tg.waitFor(() => opts.tg.callsOf("getUpdates").length > pollsBefore, 60_000), exited]);
    exited.catch(() => undefined);
    const startMs = performance.now() - spawned;
    return new Subject(child, dataDir, logFile, opts.kind === "switchboard" ? opts.heapDir : undefined, startMs);
  }

  stats(): ProcessStats {
    return processStats(this.child.pid!);
  }

  /** Lines the process has written to its stdout so far: its log, at the shipped level. */
  logLines(): number {
    let lines = 0;
    for (const byte of readFileSync(this.logFile)) if (byte === 10) lines += 1;
    return lines;
  }

  /** Asks for a heap snapshot and waits until the file is written; its path, or undefined without a heapDir. */
  async heapSnapshot(): Promise<string | undefined> {
    if (!this.heapDir) return undefined;
    const before = new Set(readdirSync(this.heapDir));
    this.child.kill("SIGUSR2");
    let last = -1;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const file = readdirSync(this.heapDir).find((name) => name.endsWith(".heapsnapshot") && !before.has(name));
      if (!file) continue;
      const size = statSync(join(this.heapDir, file)).size;
      // Written by the main thread in one go: a size that stopped growing is the whole snapshot.
      if (size > 0 && size === last) return join(this.heapDir, file);
      last = size;
    }
  }

  async stop(): Promise<void> {
    const exited = once(this.child, "exit");
    this.child.kill("SIGTERM");
    await exited;
    await rm(this.dataDir, { recursive: true, force: true });
  }
}
