/**
 * Who may run skill scripts. Kept to this one function so that the access policy (issue 9) can take it over.
 * The router lets only allowed users reach a turn, so "direct" means any direct chat that got this far.
 */
import type { ChatType } from "../channels/types.js";
import type { SkillsConfig } from "./config.js";

export function scriptRunRefusal(chatType: ChatType, rules: SkillsConfig["runScripts"]): string | undefined {
  if (chatType === "group" && !rules.groups) {
    return "Skill scripts are not enabled in group chats (skills.runScripts.groups).";
  }
  if (chatType === "direct" && !rules.direct) {
    return "Skill scripts are not enabled in direct chats (skills.runScripts.direct).";
  }
  return undefined;
}
