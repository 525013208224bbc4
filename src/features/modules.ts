/** Every feature the gateway knows, in the order they are built and started. Adding one is one plug and one line. */
import { accessFeature } from "./access.js";
import { mcpFeature } from "./mcp.js";
import { mediaFeature } from "./media.js";
import { memoryFeature } from "./memory.js";
import { sandboxFeature } from "./sandbox.js";
import { schedulerFeature } from "./scheduler.js";
import { skillsFeature } from "./skills.js";
import { ttsFeature } from "./tts.js";
import { voiceFeature } from "./voice.js";
import { imagesFeature } from "./images.js";

export const featureModules = [accessFeature, sandboxFeature, mediaFeature, skillsFeature, mcpFeature, memoryFeature, schedulerFeature, ttsFeature, voiceFeature, imagesFeature] as const;
