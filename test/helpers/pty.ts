/**
 * A command in a real pseudo-terminal, as a user's terminal runs it: util-linux `script` gives the child a tty for
 * stdin and stdout (raw mode, window size, echo), while the test types into script's stdin and reads the screen
 * from its stdout. No native addon: `script` is in Debian's essential bsdutils.
 */
import { spawn, spawnSync } from "node:child_process";
import { EventEmitter, once } from "node:events";
import { constants } from "node:os";
import { stripVTControlCharacters } from "node:util";
import { whenEmitted } from "./wait.js";

export interface PtyOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  columns?: number;
  rows?: number;
}

export interface Pty {
  /** Every byte written to the terminal, escape sequences and all. */
  readonly raw: string;
  /** What was written, escape sequences and carriage returns taken out. */
  readonly screen: string;
  /** Waits up to `timeoutMs` for `pattern` on the screen after the previous match, then moves past it. */
  expect(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** `expect`, then types `keys`. */
  answer(pattern: RegExp, keys: string, timeoutMs?: number): Promise<void>;
  type(keys: string): void;
  /** The command's exit code (`script -e` passes it on; 128+n for a signal). */
  readonly exited: Promise<number>;
  /** Ends the terminal's session if it still runs. */
  close(): Promise<void>;
}

/** Whether util-linux `script` is there (Debian's bsdutils; busybox's lacks the options used). */
export const ptyAvailable = spawnSync("script", ["--version"], { encoding: "utf8" }).stdout?.includes("util-linux") === true;

const quote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;

/** Runs `command` in a terminal of `columns` x `rows` (the size a real one reports; a pty starts at 0 x 0). */
export function spawnPty(command: string[], opts: PtyOptions): Pty {
  const line = `stty cols ${opts.columns ?? 100} rows ${opts.rows ?? 40} && exec ${command.map(quote).join(" ")}`;
  const child = spawn("script", ["--quiet", "--flush", "--return", "--command", line, "/dev/null"], {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let raw = "";
  let screen = "";
  let seen = 0;
  const changes = new EventEmitter();
  const onOutput = (chunk: string) => {
    raw += chunk;
    screen = stripVTControlCharacters(raw).replaceAll("\r", "");
    changes.emit("output");
  };
  for (const stream of [child.stdout, child.stderr]) stream.setEncoding("utf8").on("data", onOutput);
  let ended = false;
  const exited = once(child, "close").then(([code, signal]) => {
    ended = true;
    changes.emit("output");
    return (code as number | null) ?? 128 + constants.signals[signal as NodeJS.Signals];
  });
  const expect = async (pattern: RegExp, timeoutMs = 30_000) => {
    let found: RegExpExecArray | null = null;
    const shown = () => `${pattern} on the screen, which shows after the last match:\n${screen.slice(seen)}`;
    await whenEmitted(() => (found = pattern.exec(screen.slice(seen))) !== null || ended, changes, "output", timeoutMs, shown);
    if (found === null) throw new Error(`the command ended before ${shown()}`);
    seen += (found as RegExpExecArray).index + (found as RegExpExecArray)[0].length;
  };
  const type = (keys: string) => void child.stdin.write(keys);
  return {
    get raw() {
      return raw;
    },
    get screen() {
      return screen;
    },
    expect,
    answer: async (pattern, keys, timeoutMs) => {
      await expect(pattern, timeoutMs);
      type(keys);
    },
    type,
    exited,
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(-child.pid!, "SIGKILL");
      await exited;
    },
  };
}
