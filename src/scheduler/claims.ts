/**
 * Exactly once: a run is claimed in the store (set-if-absent on task id and slot) before anything is sent, so a
 * retry, a restart or a second replica finds the claim and sends nothing. On Redis the claim is SET NX with a TTL.
 */
import type { Coordinator } from "../infra/store/types.js";

/** Longer than any grace period and restart: after it, the task itself has moved past the slot. */
export const CLAIM_TTL_MS = 7 * 24 * 3_600_000;

/** True when this call claimed the run of `taskId` for `slot`. */
export function claimRun(coordinator: Coordinator, taskId: string, slot: number): Promise<boolean> {
  return claim(coordinator, "task-run", taskId, slot);
}

/**
 * True when this replica is the one to start `slot` of cron task `taskId`: every replica's cron job fires for
 * every slot, and only the first to record it goes on. The others do not even queue the run, so none of them
 * finds it claimed while it is still being sent and records it as interrupted.
 */
export function electForCronSlot(coordinator: Coordinator, taskId: string, slot: number): Promise<boolean> {
  return claim(coordinator, "cron-slot", taskId, slot);
}

function claim(coordinator: Coordinator, kind: string, taskId: string, slot: number): Promise<boolean> {
  return coordinator.setIfAbsent(`${kind}:${taskId}:${new Date(slot).toISOString()}`, CLAIM_TTL_MS);
}
