/**
 * Exactly once: a run is claimed in the store (set-if-absent on task id and slot) before anything is sent, so a
 * retry, a restart or a second replica finds the claim and sends nothing. On Redis the claim is SET NX with a TTL.
 */
import type { RunCoordinator } from "node-cron";
import type { Coordinator } from "../infra/store/types.js";

/** Longer than any grace period and restart: after it, the task itself has moved past the slot. */
export const CLAIM_TTL_MS = 7 * 24 * 3_600_000;

/** True when this call claimed the run of `taskId` for `slot`. */
export function claimRun(coordinator: Coordinator, taskId: string, slot: number): Promise<boolean> {
  return coordinator.setIfAbsent(`task-run:${taskId}:${new Date(slot).toISOString()}`, CLAIM_TTL_MS);
}

/**
 * node-cron's RunCoordinator on the store's coordinator: of all replicas whose cron job fires for a slot, only
 * the one that records the key first runs it. node-cron builds the key from the task name (our task id) and
 * the slot, and passes the TTL we gave it as `distributedLease`.
 */
export class StoreRunCoordinator implements RunCoordinator {
  constructor(private readonly coordinator: Coordinator) {}

  shouldRun(key: string, ttlMs: number): Promise<boolean> {
    return this.coordinator.setIfAbsent(`cron-slot:${key}`, ttlMs);
  }
}
