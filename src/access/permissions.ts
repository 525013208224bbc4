/** What a role may use in a kind of chat, as the ToolPermissions the agent and the registry enforce. */
import type { ChatType } from "../core/types.js";
import type { ToolPermissions } from "../core/tools.js";
import type { AccessConfig, Role } from "./config.js";

const ARTICLE: Record<Role, string> = { owner: "an", member: "a", guest: "a" };

export function permissionsFor(config: AccessConfig, role: Role, chatType: ChatType): ToolPermissions {
  return { holder: `${ARTICLE[role]} ${role} in a ${chatType} chat`, classes: config.permissions[role][chatType] };
}
