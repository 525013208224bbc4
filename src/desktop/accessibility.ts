/**
 * The accessibility tree (AT-SPI over D-Bus) of the applications on the display: what GTK, Qt and browser windows
 * say they contain, with names, roles and boxes in screen pixels. Read by pyatspi, the AT-SPI client Debian ships
 * (python3-pyatspi), in a short-lived python3 process per query: a tree read costs tens of milliseconds against a
 * vision model's seconds and tokens. An application that exposes no tree is simply absent from it.
 */
import { execa } from "execa";
import { z } from "zod";
import { DesktopError, type Region } from "./control.js";

/** Debian's interpreter, where python3-pyatspi installs (a python3 earlier on PATH may be another one). */
const PYTHON = "/usr/bin/python3";
const READ_TIMEOUT_MS = 10_000;
/** Enough for a busy window; the model gets the first ones, in tree order. */
const MAX_ELEMENTS = 400;

/**
 * Prints the showing elements of each application's windows as JSON lines: window, role, name, box. argv[1] is a
 * window title to keep (case-insensitive substring) or "".
 */
const READ_TREE = `
import json, sys
import pyatspi
title = sys.argv[1].lower()
limit = int(sys.argv[2])
out = []
def walk(node, window, depth):
    if len(out) >= limit or depth > 40:
        return
    try:
        states = node.getState()
        if not states.contains(pyatspi.STATE_SHOWING):
            return
        e = node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        if e.width > 0 and e.height > 0 and (node.name or "").strip():
            out.append({"window": window, "role": node.getRoleName(), "name": node.name, "box": [e.x, e.y, e.width, e.height]})
    except Exception:
        pass
    for i in range(min(node.childCount, 500)):
        child = node.getChildAtIndex(i)
        if child is not None:
            walk(child, window, depth + 1)
desktop = pyatspi.Registry.getDesktop(0)
for a in range(desktop.childCount):
    app = desktop.getChildAtIndex(a)
    if app is None:
        continue
    for w in range(app.childCount):
        window = app.getChildAtIndex(w)
        if window is not None and title in (window.name or "").lower():
            walk(window, window.name or "", 0)
print(json.dumps(out))
`;

const elementsSchema = z.array(
  z.object({ window: z.string(), role: z.string(), name: z.string(), box: z.tuple([z.number(), z.number(), z.number(), z.number()]) }),
);

export interface AccessibleElement {
  window: string;
  role: string;
  name: string;
  box: Region;
}

/** What a search of the tree found: the element's centre and box, and its role and name as the application gives them. */
export interface AccessibleMatch {
  found: boolean;
  center?: { x: number; y: number };
  box?: Region;
  role?: string;
  name?: string;
  method: "accessibility";
}

/** Why the tree cannot be read here (no pyatspi), or null. */
export async function accessibilityUnavailable(): Promise<string | null> {
  const probe = await execa(PYTHON, ["-c", "import pyatspi"], { reject: false, timeout: READ_TIMEOUT_MS });
  return probe.exitCode === 0 ? null : "no AT-SPI client: install python3-pyatspi and at-spi2-core (Debian)";
}

export class AccessibilityTree {
  /** `env` gives the display (and the accessibility bus's session bus, when the gateway started one). */
  constructor(private readonly env: () => Promise<NodeJS.ProcessEnv>) {}

  /** The named, showing elements of the windows whose title contains `windowTitle` (all windows without it). */
  async elements(windowTitle?: string): Promise<AccessibleElement[]> {
    const result = await execa(PYTHON, ["-c", READ_TREE, windowTitle ?? "", String(MAX_ELEMENTS)], {
      env: await this.env(),
      reject: false,
      timeout: READ_TIMEOUT_MS,
    });
    if (result.timedOut) throw new DesktopError(`the accessibility tree did not answer within ${READ_TIMEOUT_MS} ms`);
    if (result.exitCode !== 0) throw new DesktopError(`could not read the accessibility tree: ${lastLine(result.stderr)}`);
    return elementsSchema.parse(JSON.parse(result.stdout)).map(({ box: [x, y, width, height], ...rest }) => ({ ...rest, box: { x, y, width, height } }));
  }

  /** The element that best matches the words of `target` ("Accept", "the Accept button"). */
  async find(target: string, windowTitle?: string): Promise<AccessibleMatch> {
    const best = bestMatch(await this.elements(windowTitle), target);
    if (!best) return { found: false, method: "accessibility" };
    const { box } = best;
    return { found: true, center: { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) }, box, role: best.role, name: best.name, method: "accessibility" };
  }
}

/**
 * The name that equals the target wins, then one the target contains ("the Accept button" names "Accept"), then one
 * containing the target; a role the target mentions ("button") breaks ties, then tree order.
 */
export function bestMatch(elements: readonly AccessibleElement[], target: string): AccessibleElement | null {
  const wanted = normalized(target);
  let best: { element: AccessibleElement; score: number } | null = null;
  for (const element of elements) {
    const name = normalized(element.name);
    const nameScore = name === wanted ? 3 : name.length > 1 && wanted.includes(name) ? 2 : wanted.length > 1 && name.includes(wanted) ? 1 : 0;
    if (nameScore === 0) continue;
    const score = 2 * nameScore + (element.role.split(" ").some((word) => wanted.includes(word)) ? 1 : 0);
    if (!best || score > best.score) best = { element, score };
  }
  return best?.element ?? null;
}

/** Case, mnemonics (GTK's "_Accept") and spacing do not matter. */
function normalized(text: string): string {
  return text.toLowerCase().replace(/[_&]/g, "").replace(/\s+/g, " ").trim();
}

function lastLine(text: string): string {
  return text.trim().split("\n").at(-1) ?? "no output";
}
