/**
 * The X display the desktop tools drive: an existing one (checked, never started or stopped), or with "auto" a
 * virtual one: Xvfb at the configured size with openbox, so windows can be listed and focused (EWMH), and, where
 * at-spi2-core is installed, a session bus with the accessibility bus launcher (applications on the display find
 * it through the display's root window), all stopped with the gateway.
 */
import { access } from "node:fs/promises";
import { execa, type ResultPromise } from "execa";
import { setTimeout as delay } from "node:timers/promises";
import { parseSize, type DesktopConfig, type Size } from "./config.js";

const START_TIMEOUT_MS = 20_000;
const PROBE_INTERVAL_MS = 50;
const REQUIRED_PROGRAMS = ["xdotool", "wmctrl", "ffmpeg"] as const;
const AUTO_PROGRAMS = ["Xvfb", "openbox"] as const;
const ACCESSIBILITY_BUS_LAUNCHER = "/usr/libexec/at-spi-bus-launcher";

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
  private sessionBus: ResultPromise | undefined;
  private accessibilityBus: ResultPromise | undefined;
  private busAddress: string | undefined;
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

  /** The environment of a program that works on the display: DISPLAY, and the session bus the gateway started. */
  async env(): Promise<NodeJS.ProcessEnv> {
    const display = await this.display();
    return { DISPLAY: display, ...(this.busAddress ? { DBUS_SESSION_BUS_ADDRESS: this.busAddress } : {}) };
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
    for (const child of [this.accessibilityBus, this.sessionBus, this.wm, this.xvfb]) {
      if (!child || child.exitCode !== null) continue;
      child.kill("SIGTERM");
      await child.catch(() => undefined);
    }
    this.accessibilityBus = this.sessionBus = this.wm = this.xvfb = undefined;
    this.busAddress = undefined;
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
    await this.startAccessibilityBus(display);
    return display;
  }

  /** Without at-spi2-core the desktop works as before; only the accessibility tree is missing (doctor says so). */
  private async startAccessibilityBus(display: string): Promise<void> {
    if (!(await access(ACCESSIBILITY_BUS_LAUNCHER).then(() => true, () => false))) return;
    const bus = execa("dbus-daemon", ["--session", "--nofork", "--print-address=1"], { reject: false, stdin: "ignore", stderr: "ignore" });
    this.sessionBus = bus;
    this.busAddress = await this.firstLineOf(bus, "dbus-daemon");
    const env = { DISPLAY: display, DBUS_SESSION_BUS_ADDRESS: this.busAddress };
    this.accessibilityBus = execa(ACCESSIBILITY_BUS_LAUNCHER, ["--launch-immediately"], { env, reject: false, stdio: "ignore" });
    // Ready once it has registered on the session bus: applications started after that find it.
    const registered = () => execa("dbus-send", ["--session", "--print-reply", "--dest=org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus.GetAddress"], { env, reject: false });
    await this.until(async () => (await registered()).exitCode === 0, `the accessibility bus on ${display}`);
  }

  private async displayNumberOf(xvfb: ResultPromise): Promise<string> {
    const line = await this.firstLineOf(xvfb, "Xvfb");
    if (!/^\d+$/.test(line)) throw new Error(`Xvfb wrote "${line.slice(0, 40)}" where its display number belongs`);
    return line;
  }

  /** The first line a starting program writes (Xvfb its display number, dbus-daemon its address); stops all on failure. */
  private async firstLineOf(child: ResultPromise, name: string): Promise<string> {
    let written = "";
    let timer: NodeJS.Timeout | undefined;
    const line = new Promise<string>((resolve, reject) => {
      child.stdout?.on("data", (chunk: Buffer) => {
        written += chunk.toString();
        const match = /^(.+)\n/.exec(written);
        if (match) resolve(match[1]!);
      });
      void child.then((result) => reject(new Error(`${name} exited with ${String(result.exitCode)} before it was ready`)));
      timer = setTimeout(() => reject(new Error(`${name} did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    });
    try {
      return await line;
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
