/** Every feature the gateway knows, in the order they are built and started. Adding one is one plug and one line. */
import { accessFeature } from "./access.js";
import { approvalsFeature } from "./approvals.js";
import { agentsFeature, routingFeature } from "./agents.js";
import { browserFeature } from "./browser.js";
import { budgetsFeature } from "./budgets.js";
import { desktopFeature } from "./desktop.js";
import { imagesFeature } from "./images.js";
import { mcpFeature } from "./mcp.js";
import { mediaFeature } from "./media.js";
import { memoryFeature } from "./memory.js";
import { sandboxFeature } from "./sandbox.js";
import { schedulerFeature } from "./scheduler.js";
import { skillsFeature } from "./skills.js";
import { ttsFeature } from "./tts.js";
import { voiceFeature } from "./voice.js";
import { webFeature } from "./web.js";

export const featureModules = [
  approvalsFeature,
  accessFeature,
  sandboxFeature,
  mediaFeature,
  skillsFeature,
  mcpFeature,
  memoryFeature,
  schedulerFeature,
  webFeature,
  browserFeature,
  desktopFeature,
  ttsFeature,
  voiceFeature,
  // Before images, which counts its pictures on the budgets' usage port.
  budgetsFeature,
  imagesFeature,
  routingFeature,
  agentsFeature,
] as const;
