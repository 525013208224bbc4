/**
 * The X display the desktop tools drive: an existing one (checked, never started or stopped), or with "auto" a
 * virtual one: Xvfb at the configured size with openbox, so windows can be listed and focused (EWMH), stopped with
 * the gateway.
 */
import { execa, type ResultPromise } from "execa";
import { setTimeout as delay } from "node:timers/promises";
import { parseSize, type DesktopConfig, type Size } from "./config.js";

const START_TIMEOUT_MS = 20_000;
const PROBE_INTERVAL_MS = 50;
const REQUIRED_PROGRAMS = ["xdotool", "wmctrl", "ffmpeg"] as const;
const AUTO_PROGRAMS = ["Xvfb", "openbox"] as const;

/** Why the desktop cannot work here, or null when it can be tried. */
export async function desktopUnavailable(config: DesktopConfig, env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  if (process.platform !== "linux") return `the desktop tools work only on Linux with X11; this is ${process.platform}`;
  const programs = config.display === "auto" ? [...REQUIRED_PROGRAMS, ...AUTO_PROGRAMS] : REQUIRED_PROGRAMS;
  const missing: string[] = [];
  for (const program of programs) if (!(await onPath(program, env))) missing.push(program);
  if (missing.length > 0) return `missing programs: ${missing.join(", ")} (Debian: xdotool wmctrl ffmpeg xvfb openbox)`;
  return null;
}

async function onPath(program: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const result = await execa("sh", ["-c", `command -v ${program}`], { env, reject: false });
  return result.exitCode === 0;
}

export class DesktopDisplay {
  private xvfb: ResultPromise | undefined;
  private wm: ResultPromise | undefined;
  private current: string | undefined;
  private size: Size | undefined;

  constructor(private readonly config: DesktopConfig) {}

  /** The display's name (":99"); starts the virtual one on first use. */
  async display(): Promise<string> {
    if (this.current) return this.current;
    const name = this.config.display === "auto" ? await this.startVirtual() : await this.checkExisting(this.config.display);
    this.current = name;
    return name;
  }

  /** The display's full resolution. */
  async resolution(): Promise<Size> {
    if (this.size) return this.size;
    const display = await this.display();
    const { stdout } = await execa("xdotool", ["getdisplaygeometry"], { env: { DISPLAY: display } });
    const [width, height] = stdout.trim().split(/\s+/).map(Number) as [number, number];
    this.size = { width, height };
    return this.size;
  }

  async stop(): Promise<void> {
    for (const child of [this.wm, this.xvfb]) {
      if (!child || child.exitCode !== null) continue;
      child.kill("SIGTERM");
      await child.catch(() => undefined);
    }
    this.wm = undefined;
    this.xvfb = undefined;
    this.current = undefined;
    this.size = undefined;
  }

  private async checkExisting(display: string): Promise<string> {
    const probe = await execa("xdotool", ["getdisplaygeometry"], { env: { DISPLAY: display }, reject: false });
    if (probe.exitCode !== 0) throw new Error(`the X display ${display} does not answer: ${probe.stderr.trim() || "no reply"}`);
    return display;
  }

  private async startVirtual(): Promise<string> {
    const { width, height } = parseSize(this.config.size);
    // -displayfd: Xvfb picks a free display number itself and writes it once it accepts connections (no race).
    const xvfb = execa("Xvfb", ["-displayfd", "1", "-screen", "0", `${width}x${height}x24`, "-nolisten", "tcp"], { reject: false, stdin: "ignore", stderr: "ignore" });
    this.xvfb = xvfb;
    const display = `:${await this.displayNumberOf(xvfb)}`;
    this.wm = execa("openbox", ["--sm-disable"], { env: { DISPLAY: display }, reject: false, stdio: "ignore" });
    await this.until(async () => (await execa("wmctrl", ["-l"], { env: { DISPLAY: display }, reject: false })).exitCode === 0, `openbox on ${display}`);
    return display;
  }

  private async displayNumberOf(xvfb: ResultPromise): Promise<string> {
    let written = "";
    let timer: NodeJS.Timeout | undefined;
    const number = new Promise<string>((resolve, reject) => {
      xvfb.stdout?.on("data", (chunk: Buffer) => {
        written += chunk.toString();
        const match = /^(\d+)\n/.exec(written);
        if (match) resolve(match[1]!);
      });
      void xvfb.then((result) => reject(new Error(`Xvfb exited with ${String(result.exitCode)} before it was ready`)));
      timer = setTimeout(() => reject(new Error(`Xvfb did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    });
    try {
      return await number;
    } catch (err) {
      await this.stop();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Start-up is polled: Xvfb and openbox say nothing when they are ready. */
  private async until(ready: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      const failure =
        this.xvfb?.exitCode != null
          ? `Xvfb exited with ${String(this.xvfb.exitCode)}`
          : this.wm?.exitCode != null
            ? `openbox exited with ${String(this.wm.exitCode)}`
            : undefined;
      if (!failure && (await ready())) return;
      if (failure || Date.now() > deadline) {
        await this.stop();
        throw new Error(`${what} did not start: ${failure ?? `not ready within ${START_TIMEOUT_MS} ms`}`);
      }
      await delay(PROBE_INTERVAL_MS);
    }
  }
}
