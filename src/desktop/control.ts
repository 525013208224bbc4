/**
 * Input, windows and screenshots on an X display, through Debian's well-kept tools: xdotool (real XTEST input to
 * the focused window: `type --window` would send synthetic events that xterm and others ignore), wmctrl (EWMH
 * windows) and ffmpeg's x11grab (a PNG at full resolution).
 */
import { execa } from "execa";
import type { DesktopDisplay } from "./display.js";
import type { Size } from "./config.js";

export interface DesktopWindow {
  id: string;
  desktop: number;
  title: string;
}

export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type MouseButton = "left" | "middle" | "right";
export type ScrollDirection = "up" | "down" | "left" | "right";
export type WindowAction = "minimize" | "maximize" | "close" | "focus";

const BUTTONS: Record<MouseButton, string> = { left: "1", middle: "2", right: "3" };
const SCROLL_BUTTONS: Record<ScrollDirection, string> = { up: "4", down: "5", left: "6", right: "7" };
const TYPE_DELAY_MS = "12";

/** A request the display cannot satisfy (no such window); the handler turns it into a tool error. */
export class DesktopError extends Error {
  override name = "DesktopError";
}

export class DesktopControl {
  constructor(private readonly display: DesktopDisplay) {}

  resolution(): Promise<Size> {
    return this.display.resolution();
  }

  async windows(): Promise<DesktopWindow[]> {
    const { stdout } = await this.run("wmctrl", ["-l"]);
    return stdout
      .split("\n")
      .map((line) => /^(0x[0-9a-f]+)\s+(-?\d+)\s+\S+\s?(.*)$/i.exec(line))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => ({ id: match[1]!, desktop: Number(match[2]), title: match[3] ?? "" }));
  }

  /** The first window whose title contains `title` (case-insensitive). */
  async findWindow(title: string): Promise<DesktopWindow> {
    const wanted = title.toLowerCase();
    const found = (await this.windows()).find((window) => window.title.toLowerCase().includes(wanted));
    if (!found) throw new DesktopError(`no window title contains "${title}"`);
    return found;
  }

  async windowAction(action: WindowAction, title: string): Promise<DesktopWindow> {
    const window = await this.findWindow(title);
    if (action === "focus") await this.run("wmctrl", ["-i", "-a", window.id]);
    else if (action === "close") await this.run("wmctrl", ["-i", "-c", window.id]);
    else if (action === "maximize") await this.run("wmctrl", ["-i", "-r", window.id, "-b", "add,maximized_vert,maximized_horz"]);
    else await this.run("xdotool", ["windowminimize", String(Number(window.id))]);
    return window;
  }

  async activeWindowTitle(): Promise<string | null> {
    const result = await this.run("xdotool", ["getactivewindow", "getwindowname"], false);
    return result.exitCode === 0 ? result.stdout.trim() : null;
  }

  async windowGeometry(title: string): Promise<Region> {
    const window = await this.findWindow(title);
    const { stdout } = await this.run("xdotool", ["getwindowgeometry", "--shell", String(Number(window.id))]);
    const value = (key: string): number => Number(new RegExp(`^${key}=(\\d+)`, "m").exec(stdout)?.[1] ?? 0);
    return { x: value("X"), y: value("Y"), width: value("WIDTH"), height: value("HEIGHT") };
  }

  async click(x: number, y: number, button: MouseButton, double: boolean): Promise<void> {
    await this.run("xdotool", ["mousemove", "--sync", String(x), String(y), "click", ...(double ? ["--repeat", "2"] : []), BUTTONS[button]]);
  }

  /** Types into the focused window; each line break is pressed as Return. */
  async type(text: string): Promise<void> {
    const lines = text.split(/\r?\n/);
    for (const [index, line] of lines.entries()) {
      if (line.length > 0) await this.run("xdotool", ["type", "--delay", TYPE_DELAY_MS, "--", line]);
      if (index < lines.length - 1) await this.run("xdotool", ["key", "Return"]);
    }
  }

  /** "ctrl+s", "alt+F4", "Return": xdotool's key names joined by "+". */
  async hotkey(keys: string): Promise<void> {
    await this.run("xdotool", ["key", "--clearmodifiers", keys]);
  }

  async scroll(direction: ScrollDirection, amount: number, at?: { x: number; y: number }): Promise<void> {
    const move = at ? ["mousemove", "--sync", String(at.x), String(at.y)] : [];
    await this.run("xdotool", [...move, "click", "--repeat", String(amount), SCROLL_BUTTONS[direction]]);
  }

  /** A PNG of the display (or of `region`), at full resolution. */
  async screenshot(region?: Region): Promise<Buffer> {
    const display = await this.display.display();
    const full = await this.resolution();
    const area = region ?? { x: 0, y: 0, ...full };
    if (area.width <= 0 || area.height <= 0 || area.x + area.width > full.width || area.y + area.height > full.height || area.x < 0 || area.y < 0) {
      throw new DesktopError(`the region ${area.width}x${area.height}+${area.x}+${area.y} is outside the ${full.width}x${full.height} display`);
    }
    const result = await execa(
      "ffmpeg",
      ["-loglevel", "error", "-f", "x11grab", "-video_size", `${area.width}x${area.height}`, "-i", `${display}+${area.x},${area.y}`, "-frames:v", "1", "-c:v", "png", "-f", "image2pipe", "-"],
      { encoding: "buffer", stdin: "ignore" },
    );
    return Buffer.from(result.stdout);
  }

  /** The PNG shrunk so neither side exceeds `maxEdge` (aspect kept); unchanged when it already fits. */
  async fitWithin(png: Buffer, size: Size, maxEdge: number): Promise<{ png: Buffer; size: Size }> {
    if (size.width <= maxEdge && size.height <= maxEdge) return { png, size };
    const ratio = Math.min(maxEdge / size.width, maxEdge / size.height);
    const fitted = { width: Math.max(1, Math.floor(size.width * ratio)), height: Math.max(1, Math.floor(size.height * ratio)) };
    const result = await execa(
      "ffmpeg",
      ["-loglevel", "error", "-f", "png_pipe", "-i", "-", "-vf", `scale=${fitted.width}:${fitted.height}`, "-frames:v", "1", "-c:v", "png", "-f", "image2pipe", "-"],
      { input: png, encoding: "buffer" },
    );
    return { png: Buffer.from(result.stdout), size: fitted };
  }

  private async run(program: string, args: string[], reject = true): Promise<{ stdout: string; exitCode: number | undefined }> {
    const display = await this.display.display();
    const result = await execa(program, args, { env: { DISPLAY: display }, reject: false, stdin: "ignore" });
    if (reject && result.exitCode !== 0) throw new Error(`${program} ${args[0] ?? ""} failed on ${display}: ${result.stderr.trim() || `exit ${String(result.exitCode)}`}`);
    return { stdout: result.stdout, exitCode: result.exitCode };
  }
}
