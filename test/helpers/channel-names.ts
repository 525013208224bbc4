/** The names of the real channel modules, as the gateway lists them. */
import { channelModules } from "../../src/channels/modules.js";

export const CHANNEL_NAMES: readonly string[] = channelModules.map((module) => module.name);
