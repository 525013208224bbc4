/** The desktop engine: one X display (existing or virtual), what drives it, and finding elements on it. */
export { desktopConfigSchema, parseSize, type DesktopConfig, type Size } from "./config.js";
export { DesktopDisplay, desktopUnavailable } from "./display.js";
export { DesktopControl, DesktopError, type DesktopWindow, type MouseButton, type Region, type ScrollDirection, type WindowAction } from "./control.js";
export { locateByVision, type AskVision, type LocatedElement } from "./vision.js";
export { visionModelOf } from "./vision-model.js";
export { AccessibilityTree, accessibilityUnavailable, type AccessibleMatch } from "./accessibility.js";
