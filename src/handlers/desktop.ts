/**
 * Desktop tools: see and drive an X11 desktop (the gateway's own virtual one, or the machine's). Every tool is
 * "admin" (owners only), every action is logged with who asked, and a screenshot goes only to the chat that asked,
 * through deliver_artifacts' path, with a receipt.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { z } from "zod";
import { implementTool, ToolError, type ToolContext, type ToolHandlerSpec, type ToolImplementation, type ToolMediaOutput } from "../core/tools.js";
import {
  DesktopError,
  locateByVision,
  type AccessibilityTree,
  type AccessibleMatch,
  type AskVision,
  type DesktopControl,
  type LocatedElement,
  type Region,
} from "../desktop/index.js";

const CATEGORY = "Desktop";
const MAX_WAIT_MS = 60_000;
const WAIT_POLL_MS = 200;
/** Vision models downscale larger images themselves (Anthropic's guidance: 1568 px); sending less costs fewer tokens. */
const MODEL_IMAGE_MAX_EDGE = 1568;

/** Sends workspace files to the chat that asked (the media engine's Deliverer); answers its receipts. */
export type DeliverToChat = (request: { artifacts: Array<{ type: "image"; path: string; caption?: string }> }, ctx: ToolContext) => Promise<unknown>;

export interface DesktopHandlerDeps {
  control: DesktopControl;
  /** Why the desktop cannot be used here, or null. */
  unavailable: () => Promise<string | null>;
  /** Null when the media feature is off: screenshots are then only given to the model. */
  deliver: DeliverToChat | null;
  /** The vision model, when llm.vision is on and a model is configured. */
  ask: AskVision | null;
  /** The applications' accessibility tree, and why it cannot be read here (or null). */
  tree: AccessibilityTree;
  treeUnavailable: () => Promise<string | null>;
  /** Longest side of the screenshot the model sees; default 1568. */
  modelImageMaxEdge?: number;
}

export function createDesktopHandler(deps: DesktopHandlerDeps): ToolHandlerSpec {
  return { name: "desktop", tools: desktopTools(deps) };
}

const coordinate = z.number().int().min(0).max(100_000);
const windowTitle = z.string().min(1).max(200);

function desktopTools(deps: DesktopHandlerDeps): ToolImplementation[] {
  const tool = <S extends z.ZodType>(
    name: string,
    shortDescription: string,
    description: string[],
    input: S,
    run: (input: z.output<S>, ctx: ToolContext) => Promise<unknown>,
  ): ToolImplementation<S> =>
    implementTool({ name, category: CATEGORY, shortDescription, description: description.join("\n"), input, risk: "admin" }, async (args, ctx) => {
      const reason = await deps.unavailable();
      if (reason) throw new ToolError(`The desktop is unavailable: ${reason}`);
      ctx.log.info({ tool: name, senderId: ctx.senderId, channel: ctx.channel, chatId: ctx.chatId, input: args }, "desktop action");
      try {
        return await run(args, ctx);
      } catch (err) {
        if (err instanceof DesktopError) throw new ToolError(err.message);
        throw err;
      }
    });

  /** By the accessibility tree first ("auto"), then by the vision model; says what is missing when neither can look. */
  const locate = async (target: string, title: string | undefined, method: "auto" | "vision" | "accessibility"): Promise<LocatedElement | AccessibleMatch> => {
    const noTree = method === "vision" ? "not asked for" : await deps.treeUnavailable();
    if (!noTree) {
      const match = await deps.tree.find(target, title);
      if (match.found || method === "accessibility" || !deps.ask) return match;
    }
    if (method === "accessibility") throw new ToolError(`The accessibility tree cannot be read: ${noTree}`);
    if (!deps.ask) throw new ToolError(`Cannot find elements: the accessibility tree is unavailable (${noTree}), and vision needs llm.vision: true with a configured model`);
    const region = title ? await focusedRegion(deps.control, title) : undefined;
    const png = await deps.control.screenshot(region);
    const size = region ?? (await deps.control.resolution());
    const found = await locateByVision(deps.ask, png, { width: size.width, height: size.height }, target);
    return region ? offset(found, region) : found;
  };

  return [
    tool(
      "desktop_screenshot",
      "Screenshot the desktop (or a window/region); sent to this chat",
      [
        "Takes a PNG of the whole display at full resolution (or of one window, or a region), sends it to this chat",
        "with a receipt, and shows it to you when the model has vision.",
        'Example: desktop_screenshot({}) or desktop_screenshot({"window": "Firefox"})',
      ],
      z.object({
        window: windowTitle.optional().describe("Part of a window's title: only that window"),
        region: z.object({ x: coordinate, y: coordinate, width: coordinate.min(1), height: coordinate.min(1) }).optional(),
      }),
      async (input, ctx) => {
        const region = input.window ? await deps.control.windowGeometry(input.window) : input.region;
        const png = await deps.control.screenshot(region);
        const dir = join(ctx.workspaceDir, "desktop");
        await mkdir(dir, { recursive: true });
        const file = join(dir, `screenshot-${Date.now()}.png`);
        await writeFile(file, png);
        const path = relative(ctx.workspaceDir, file);
        const size = region ?? (await deps.control.resolution());
        const delivery = deps.deliver ? await deps.deliver({ artifacts: [{ type: "image", path }] }, ctx) : { note: "media delivery is off: not sent to the chat" };
        const summary = { path, width: size.width, height: size.height, bytes: png.length, delivery };
        if (!deps.ask) return summary;
        const shown = await deps.control.fitWithin(png, size, deps.modelImageMaxEdge ?? MODEL_IMAGE_MAX_EDGE);
        const media: ToolMediaOutput = {
          kind: "tool-media",
          parts: [
            { type: "text", text: JSON.stringify({ ...summary, shown_to_model: shown.size }) },
            { type: "image", data: shown.png.toString("base64"), mediaType: "image/png" },
          ],
        };
        return media;
      },
    ),
    tool(
      "desktop_find_element",
      "Find a UI element on screen; returns its centre and box",
      [
        "Locates an element (a button, a field, a text) and returns {found, center: {x, y}, box, method}.",
        'method "accessibility" reads the applications\' accessibility tree (no model call), "vision" asks the vision model',
        'about a screenshot, "auto" tries the tree first. A tree match also names the element\'s role and name.',
        'Example: desktop_find_element({"target": "the Accept button", "window_title": "Terms"})',
      ],
      z.object({
        target: z.string().min(1).max(500),
        window_title: windowTitle.optional(),
        method: z.enum(["auto", "accessibility", "vision"]).default("auto"),
      }),
      (input) => locate(input.target, input.window_title, input.method),
    ),
    tool(
      "desktop_click",
      "Click at x,y or on an element described in words",
      [
        "Moves the mouse and clicks: at {x, y}, or on `target` (found as with desktop_find_element).",
        'Example: desktop_click({"x": 640, "y": 400}) or desktop_click({"target": "OK button", "double": false})',
      ],
      z
        .object({
          target: z.string().min(1).max(500).optional(),
          x: coordinate.optional(),
          y: coordinate.optional(),
          button: z.enum(["left", "middle", "right"]).default("left"),
          double: z.boolean().default(false),
        })
        .refine((input) => input.target !== undefined || (input.x !== undefined && input.y !== undefined), "give target, or both x and y"),
      async (input) => {
        let point = input.x !== undefined && input.y !== undefined ? { x: input.x, y: input.y } : undefined;
        if (!point) {
          const found = await locate(input.target ?? "", undefined, "auto");
          if (!found.center) throw new ToolError(`"${input.target ?? ""}" is not visible on the screen`);
          point = found.center;
        }
        await deps.control.click(point.x, point.y, input.button, input.double);
        return { clicked: point, button: input.button, double: input.double };
      },
    ),
    tool(
      "desktop_type",
      "Type text into the focused window (\\n presses Enter)",
      [
        "Types text as real key presses into the focused window (or focuses window_title first). A line break is",
        "pressed as Enter.",
        'Example: desktop_type({"text": "ls -l\\n", "window_title": "Terminal"})',
      ],
      z.object({ text: z.string().min(1).max(10_000), window_title: windowTitle.optional() }),
      async (input) => {
        if (input.window_title) await deps.control.windowAction("focus", input.window_title);
        await deps.control.type(input.text);
        return { typed: input.text.length, window: (await deps.control.activeWindowTitle()) ?? null };
      },
    ),
    tool(
      "desktop_hotkey",
      "Press a key combination such as ctrl+s or alt+F4",
      ['Presses keys together in the focused window, xdotool names joined by "+".', 'Example: desktop_hotkey({"keys": "ctrl+s"})'],
      z.object({ keys: z.string().regex(/^[\w]+(\+[\w]+)*$/, 'keys joined by "+", e.g. ctrl+s') }),
      async (input) => {
        await deps.control.hotkey(input.keys);
        return { pressed: input.keys };
      },
    ),
    tool(
      "desktop_scroll",
      "Scroll up/down/left/right, optionally at x,y",
      ['Scrolls with the mouse wheel, `amount` clicks (default 3), at {x, y} if given.', 'Example: desktop_scroll({"direction": "down", "amount": 5})'],
      z
        .object({ direction: z.enum(["up", "down", "left", "right"]), amount: z.number().int().min(1).max(50).default(3), x: coordinate.optional(), y: coordinate.optional() })
        .refine((input) => (input.x === undefined) === (input.y === undefined), "give both x and y, or neither"),
      async (input) => {
        const at = input.x !== undefined && input.y !== undefined ? { x: input.x, y: input.y } : undefined;
        await deps.control.scroll(input.direction, input.amount, at);
        return { scrolled: input.direction, amount: input.amount };
      },
    ),
    tool(
      "desktop_window",
      "List, focus, minimize, maximize or close windows",
      ['action "list" lists windows; the others act on the first window whose title contains `title`.', 'Example: desktop_window({"action": "focus", "title": "Terminal"})'],
      z
        .object({ action: z.enum(["list", "focus", "minimize", "maximize", "close"]), title: windowTitle.optional() })
        .refine((input) => input.action === "list" || input.title !== undefined, "this action needs a title"),
      async (input) => {
        if (input.action === "list") return { windows: await deps.control.windows(), active: await deps.control.activeWindowTitle() };
        const window = await deps.control.windowAction(input.action, input.title ?? "");
        return { [input.action === "close" ? "closed" : input.action]: window };
      },
    ),
    tool(
      "desktop_wait",
      "Wait some milliseconds, or until a window appears",
      ["Waits `ms` milliseconds, or until a window whose title contains `target` exists (up to timeout_ms).", 'Example: desktop_wait({"target": "Save As"})'],
      z
        .object({ target: windowTitle.optional(), ms: z.number().int().min(1).max(MAX_WAIT_MS).optional(), timeout_ms: z.number().int().min(1).max(MAX_WAIT_MS).default(10_000) })
        .refine((input) => (input.target === undefined) !== (input.ms === undefined), "give target or ms"),
      async (input, ctx) => {
        if (input.ms !== undefined) {
          await delay(input.ms, undefined, { signal: ctx.signal });
          return { waited_ms: input.ms };
        }
        const target = input.target ?? "";
        const deadline = Date.now() + input.timeout_ms;
        for (;;) {
          const window = (await deps.control.windows()).find((w) => w.title.toLowerCase().includes(target.toLowerCase()));
          if (window) return { appeared: window };
          if (Date.now() > deadline) throw new ToolError(`no window titled like "${target}" appeared within ${input.timeout_ms} ms`, "timeout");
          await delay(WAIT_POLL_MS, undefined, { signal: ctx.signal });
        }
      },
    ),
    tool(
      "desktop_inspect",
      "Describe the desktop: windows, the focused one, UI elements",
      [
        "Lists the windows, the focused one, the display size, (with window_title) that window's geometry, and the",
        "named elements the applications expose in their accessibility tree (role, name, box), or why there is none.",
        'Example: desktop_inspect({"window_title": "Terminal"})',
      ],
      z.object({ window_title: windowTitle.optional() }),
      async (input) => {
        const noTree = await deps.treeUnavailable();
        return {
          display: await deps.control.resolution(),
          active: await deps.control.activeWindowTitle(),
          windows: await deps.control.windows(),
          ...(input.window_title ? { geometry: await deps.control.windowGeometry(input.window_title) } : {}),
          ...(noTree ? { accessibility: `unavailable: ${noTree}` } : { elements: await deps.tree.elements(input.window_title) }),
        };
      },
    ),
  ];
}

async function focusedRegion(control: DesktopControl, title: string): Promise<Region> {
  await control.windowAction("focus", title);
  return control.windowGeometry(title);
}

/** A box found inside a window, moved to screen coordinates. */
function offset(found: LocatedElement, region: Region): LocatedElement {
  if (!found.center || !found.box) return found;
  return {
    ...found,
    center: { x: found.center.x + region.x, y: found.center.y + region.y },
    box: { ...found.box, x: found.box.x + region.x, y: found.box.y + region.y },
  };
}
