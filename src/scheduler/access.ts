/**
 * Who may see and change a task: its creator, and the owner; the operator (CLI, admin API) sees everything.
 * This file is the one place those rules live.
 */
import type { ChannelName } from "../core/types.js";
import type { ToolPermissions } from "../core/tools.js";
import type { Actor, TaskRecord } from "./types.js";

/**
 * A chat user. `isOwner` comes from the access policy: in a tool call, the "admin" permission it granted the
 * sender; for slash commands, the policy's owner list, through the `isOwner` hook the gateway passes.
 */
export function userActor(channel: ChannelName, userId: string, isOwner: boolean): Actor {
  return { kind: "user", channel, userId, isOwner };
}

export function isOwnerBy(permissions: ToolPermissions | undefined): boolean {
  return permissions?.classes.includes("admin") === true;
}

export function canManage(actor: Actor, task: TaskRecord): boolean {
  if (actor.kind === "operator" || actor.isOwner) return true;
  return task.creator.channel === actor.channel && task.creator.userId === actor.userId;
}

/** Everyone but the operator and the owner has a cap on live tasks. */
export function hasTaskCap(actor: Actor): boolean {
  return actor.kind === "user" && !actor.isOwner;
}
