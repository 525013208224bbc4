/**
 * The desktop tools on a real virtual X display (Xvfb + openbox started by the engine), driving a real xterm, with
 * the vision fallback against the fake OpenAI-compatible server.
 */
import { execa, type ResultPromise } from "execa";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isToolMediaOutput, type ToolContext } from "../../src/core/tools.js";
import {
  AccessibilityTree,
  accessibilityUnavailable,
  DesktopControl,
  DesktopDisplay,
  desktopConfigSchema,
  desktopUnavailable,
  visionModelOf,
} from "../../src/desktop/index.js";
import { createDesktopHandler, type DeliverToChat } from "../../src/handlers/desktop.js";
import { HandlerRegistry } from "../../src/handlers/registry.js";
import { coreConfigSchema } from "../../src/infra/config/core-schema.js";
import { startFakeOpenAI, type FakeOpenAI } from "../fakes/openai-server.js";
import { makeToolContext } from "../helpers/tool-context.js";
import { eventually } from "../helpers/wait.js";

const config = desktopConfigSchema.parse({ enabled: true, display: "auto", size: "1024x640" });
const missing = await desktopUnavailable(config);
const noTree = (await accessibilityUnavailable()) ?? ((await execa("sh", ["-c", "command -v zenity"], { reject: false })).exitCode === 0 ? null : "no zenity");
const TOOLS = ["desktop_screenshot", "desktop_find_element", "desktop_click", "desktop_type", "desktop_hotkey", "desktop_scroll", "desktop_window", "desktop_wait", "desktop_inspect"];
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe.skipIf(missing !== null)(`desktop tools on a virtual X display${missing ? ` (skipped: ${missing})` : ""}`, () => {
  const display = new DesktopDisplay(config);
  const control = new DesktopControl(display);
  let fake: FakeOpenAI;
  let registry: HandlerRegistry;
  let dir: string;
  let xterm: ResultPromise | undefined;
  const deliveries: Array<{ request: Parameters<DeliverToChat>[0]; chatId: string; png: Buffer }> = [];
  const owner = (): ToolContext => makeToolContext({ workspaceDir: join(dir, "workspace") });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchboard-desktop-"));
    fake = await startFakeOpenAI();
    const llm = coreConfigSchema.parse({ llm: { baseUrl: fake.url, model: "fake-vision-model", vision: true, maxRetries: 0 } }).llm;
    const deliver: DeliverToChat = async (request, ctx) => {
      deliveries.push({ request, chatId: ctx.chatId, png: await readFile(join(ctx.workspaceDir, request.artifacts[0]!.path)) });
      return { ok: true, receipts: [{ status: "delivered" }] };
    };
    registry = new HandlerRegistry({ log: pino({ level: "silent" }), defaultTimeoutMs: 30_000 });
    const tree = new AccessibilityTree(() => display.env());
    registry.register(createDesktopHandler({ control, unavailable: async () => null, deliver, ask: visionModelOf(llm), modelImageMaxEdge: 512, tree, treeUnavailable: accessibilityUnavailable }));
    const name = await display.display();
    xterm = execa("xterm", ["-T", "sb-term", "-e", "sh"], { env: { ...process.env, DISPLAY: name }, cwd: dir, reject: false, stdio: "ignore" });
    await eventually(async () => (await control.windows()).some((w) => w.title === "sb-term"), "the xterm window", 10_000);
  }, 30_000);

  afterAll(async () => {
    xterm?.kill("SIGKILL");
    await xterm?.catch(() => undefined);
    await display.stop();
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  });

  const call = async (tool: string, input: unknown, ctx = owner()): Promise<unknown> => {
    const outcome = await registry.executeByTool(tool, input, ctx);
    if (!outcome.ok) throw new Error(`${tool}: ${outcome.code}: ${outcome.error}`);
    return outcome.output;
  };

  it("lists the terminal, focuses it, types into it with Enter, and the text arrives in a file", async () => {
    const listed = (await call("desktop_window", { action: "list" })) as { windows: Array<{ title: string }> };
    expect(listed.windows.map((w) => w.title)).toContain("sb-term");
    await call("desktop_window", { action: "focus", title: "sb-term" });
    await eventually(async () => (await control.activeWindowTitle()) === "sb-term", "the terminal to be focused");
    await call("desktop_type", { text: "echo hi > typed.txt\n", window_title: "sb-term" });
    const written = await eventually(() => readFile(join(dir, "typed.txt"), "utf8").catch(() => undefined), "typed.txt", 10_000);
    expect(written).toBe("hi\n");
  });

  it("presses a hotkey in the terminal (ctrl+u clears the line before Return)", async () => {
    await call("desktop_type", { text: "echo wrong > hotkey.txt", window_title: "sb-term" });
    await call("desktop_hotkey", { keys: "ctrl+u" });
    await call("desktop_type", { text: "echo right > hotkey.txt\n" });
    const written = await eventually(() => readFile(join(dir, "hotkey.txt"), "utf8").catch(() => undefined), "hotkey.txt", 10_000);
    expect(written).toBe("right\n");
  });

  it("takes a PNG screenshot at the display's size, delivers it to the asking chat and shows it to the model, scaled down", async () => {
    const output = await call("desktop_screenshot", {}, makeToolContext({ workspaceDir: join(dir, "workspace"), chatId: "asking-chat" }));
    expect(isToolMediaOutput(output)).toBe(true);
    const delivered = deliveries.at(-1)!;
    expect(delivered.chatId).toBe("asking-chat");
    expect(delivered.request.artifacts[0]!.type).toBe("image");
    expect(delivered.png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(pngSize(delivered.png)).toEqual({ width: 1024, height: 640 });
    const image = isToolMediaOutput(output) ? output.parts.find((part) => part.type === "image") : undefined;
    expect(image && "data" in image ? pngSize(Buffer.from(image.data, "base64")) : undefined).toEqual({ width: 512, height: 320 });
  });

  it("finds an element by vision: the fake model receives the image and its box comes back as centre and box", async () => {
    fake.enqueue({ text: 'Here: {"found": true, "x": 100, "y": 50, "width": 40, "height": 20}' });
    const found = await call("desktop_find_element", { target: "the OK button", method: "vision" });
    expect(found).toMatchObject({ found: true, center: { x: 120, y: 60 }, box: { x: 100, y: 50, width: 40, height: 20 }, method: "vision", model_calls: 1 });
    const content = fake.requests.at(-1)!.body.messages!.at(-1)!.content as Array<{ type: string; image_url?: { url: string } }>;
    const image = content.find((part) => part.type === "image_url");
    expect(image?.image_url?.url.startsWith("data:image/png;base64,")).toBe(true);
  });

  it("clicks the centre of what the vision model found, and scrolls at a point", async () => {
    const mouse = async (): Promise<string> => (await execa("xdotool", ["getmouselocation"], { env: { DISPLAY: await display.display() } })).stdout;
    fake.enqueue({ text: '{"found": true, "x": 300, "y": 200, "width": 60, "height": 30}' });
    expect(await call("desktop_click", { target: "the Save button" })).toMatchObject({ clicked: { x: 330, y: 215 }, button: "left" });
    expect(await mouse()).toMatch(/^x:330 y:215 /);
    await call("desktop_scroll", { direction: "down", amount: 2, x: 50, y: 60 });
    expect(await mouse()).toMatch(/^x:50 y:60 /);
    const bad = await registry.executeByTool("desktop_scroll", { direction: "down", x: 5 }, owner());
    expect(bad).toMatchObject({ ok: false, code: "invalid_input", error: expect.stringContaining("give both x and y") });
  });

  it("refuses a box outside the screen, and says what the vision model answered instead of a box", async () => {
    fake.enqueue({ text: '{"found": true, "x": 5000, "y": 5, "width": 10, "height": 10}' });
    await expect(call("desktop_find_element", { target: "OK", method: "vision" })).rejects.toThrow(/outside the 1024x640 screen/);
    fake.enqueue({ text: "I cannot see any button" });
    await expect(call("desktop_find_element", { target: "OK", method: "vision" })).rejects.toThrow(/answer is not a box: I cannot see any button/);
    fake.enqueue({ status: 500, body: { error: { message: "model overloaded" } } });
    await expect(call("desktop_find_element", { target: "OK", method: "vision" })).rejects.toThrow(/the vision model did not answer: model overloaded/);
  });

  it.skipIf(noTree !== null)(`finds and clicks a GTK dialog's button through the accessibility tree, with no model call${noTree ? ` (skipped: ${noTree})` : ""}`, async () => {
    const dialog = execa("zenity", ["--question", "--title=Terms", "--text=Proceed?", "--ok-label=Accept", "--cancel-label=Decline"], {
      env: { ...process.env, ...(await display.env()) },
      reject: false,
      stdio: "ignore",
    });
    try {
      await eventually(async () => (await control.windows()).some((w) => w.title === "Terms"), "the dialog's window", 15_000);
      const inspected = await eventually(async () => {
        const seen = (await call("desktop_inspect", { window_title: "Terms" })) as { elements?: Array<{ role: string; name: string }> };
        return seen.elements?.some((e) => e.name === "Accept") && seen.elements;
      }, "the dialog's accessibility tree", 15_000);
      expect(inspected).toEqual(expect.arrayContaining([expect.objectContaining({ role: "push button", name: "Accept" }), expect.objectContaining({ role: "push button", name: "Decline" })]));

      const requests = fake.requests.length;
      const found = (await call("desktop_find_element", { target: "the Accept button", window_title: "Terms" })) as { center: { x: number; y: number }; box: { x: number; y: number; width: number; height: number } };
      expect(found).toMatchObject({ found: true, method: "accessibility", role: "push button", name: "Accept" });
      expect(found.center.x).toBeGreaterThan(found.box.x);
      expect(found.center.x).toBeLessThan(found.box.x + found.box.width);
      expect(await call("desktop_find_element", { target: "Nonexistent", method: "accessibility" })).toEqual({ found: false, method: "accessibility" });
      expect(fake.requests.length).toBe(requests);

      await call("desktop_click", { target: "Accept" });
      expect((await dialog).exitCode).toBe(0);
    } finally {
      dialog.kill("SIGKILL");
    }
  });

  it("refuses a member every desktop tool, naming the admin permission", async () => {
    const member = makeToolContext({ workspaceDir: join(dir, "workspace"), permissions: { holder: "a member in a direct chat", classes: ["read", "chat", "workspace"] } });
    for (const tool of TOOLS) {
      const outcome = await registry.executeByTool(tool, {}, member);
      expect(outcome).toMatchObject({ ok: false, code: "denied" });
      expect(outcome.ok ? "" : outcome.error).toContain('needs the "admin" permission');
    }
  });
});

describe("desktop without a usable display", () => {
  it("a tool says why the desktop is unavailable", async () => {
    const registry = new HandlerRegistry({ log: pino({ level: "silent" }), defaultTimeoutMs: 5_000 });
    const control = new DesktopControl(new DesktopDisplay(config));
    const tree = new AccessibilityTree(async () => ({}));
    registry.register(createDesktopHandler({ control, unavailable: async () => "the desktop tools work only on Linux with X11; this is darwin", deliver: null, ask: null, tree, treeUnavailable: accessibilityUnavailable }));
    const outcome = await registry.executeByTool("desktop_window", { action: "list" }, makeToolContext());
    expect(outcome).toMatchObject({ ok: false, error: expect.stringContaining("unavailable: the desktop tools work only on Linux") });
  });

  it("finding an element says what is missing: the accessibility tree's client, and vision", async () => {
    const registry = new HandlerRegistry({ log: pino({ level: "silent" }), defaultTimeoutMs: 5_000 });
    const control = new DesktopControl(new DesktopDisplay(config));
    const tree = new AccessibilityTree(async () => ({}));
    const treeUnavailable = async () => "no AT-SPI client: install python3-pyatspi and at-spi2-core (Debian)";
    registry.register(createDesktopHandler({ control, unavailable: async () => null, deliver: null, ask: null, tree, treeUnavailable }));
    const byTree = await registry.executeByTool("desktop_find_element", { target: "OK", method: "accessibility" }, makeToolContext());
    expect(byTree).toMatchObject({ ok: false, error: expect.stringContaining("The accessibility tree cannot be read: no AT-SPI client") });
    const either = await registry.executeByTool("desktop_find_element", { target: "OK" }, makeToolContext());
    expect(either).toMatchObject({ ok: false, error: expect.stringMatching(/unavailable \(no AT-SPI client.*\), and vision needs llm.vision: true/) });
  });

  it("an existing display that does not answer is named in the error", async () => {
    const display = new DesktopDisplay(desktopConfigSchema.parse({ enabled: true, display: ":987" }));
    await expect(display.display()).rejects.toThrow(/the X display :987 does not answer/);
  });
});
