/**
 * The desktop's plug: the X display (started with the gateway when "auto", stopped with it), the desktop tools,
 * screenshots delivered through the media engine's Deliverer, and the vision model for finding elements.
 */
import { createDesktopHandler, type DeliverToChat } from "../handlers/desktop.js";
import {
  AccessibilityTree,
  accessibilityUnavailable,
  desktopConfigSchema,
  DesktopControl,
  DesktopDisplay,
  desktopUnavailable,
  visionModelOf,
} from "../desktop/index.js";
import { defineFeature, mediaDelivererOf, type CheckResult } from "./module.js";

export const desktopFeature = defineFeature({
  name: "desktop",
  configSchema: desktopConfigSchema,
  envOverrides: { DESKTOP_DISPLAY: { path: "display", type: "string" } },
  create: (deps) => {
    if (!deps.settings.enabled) return {};
    const settings = deps.settings;
    const display = new DesktopDisplay(settings);
    const deliverer = mediaDelivererOf(deps);
    const deliver: DeliverToChat | null = deliverer ? (request, ctx) => deliverer.deliver(request, ctx) : null;
    let reason: Promise<string | null> | undefined;
    const unavailable = (): Promise<string | null> => (reason ??= desktopUnavailable(settings));
    let treeReason: Promise<string | null> | undefined;
    const treeUnavailable = (): Promise<string | null> => (treeReason ??= accessibilityUnavailable());
    const tree = new AccessibilityTree(() => display.env());
    return {
      handlers: [createDesktopHandler({ control: new DesktopControl(display), unavailable, deliver, ask: visionModelOf(deps.core.llm), tree, treeUnavailable })],
      start: async () => {
        const why = await unavailable();
        if (why) return deps.log.warn({ reason: why }, "the desktop tools are unavailable");
        const name = await display.display();
        deps.log.info({ display: name }, "desktop display ready");
      },
      stop: () => display.stop(),
    };
  },
  doctor: async (settings) => {
    if (!settings.enabled) return [{ name: "desktop", ok: true, detail: "off (desktop.enabled: false)" }];
    const why = await desktopUnavailable(settings);
    if (why) return [{ name: "desktop", ok: false, detail: `unavailable: ${why}`, fix: "install the programs, or set desktop.enabled: false" }];
    const noTree = await accessibilityUnavailable();
    const tree: CheckResult = noTree
      ? { name: "desktop accessibility", ok: true, warning: true, detail: `${noTree}; elements are found by vision only`, fix: "apt-get install python3-pyatspi at-spi2-core" }
      : { name: "desktop accessibility", ok: true, detail: "the applications' accessibility tree (AT-SPI) is read with pyatspi" };
    if (settings.display === "auto") return [{ name: "desktop", ok: true, detail: `a virtual display (Xvfb + openbox, ${settings.size}) starts with the gateway` }, tree];
    const display = new DesktopDisplay(settings);
    try {
      const size = await display.resolution();
      return [{ name: "desktop", ok: true, detail: `display ${settings.display} answers (${size.width}x${size.height})` }, tree];
    } catch (err) {
      return [{ name: "desktop", ok: false, detail: (err as Error).message, fix: 'set desktop.display to a running X display, or "auto"' }, tree];
    }
  },
});
