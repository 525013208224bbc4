/** This process's name among the replicas sharing one store: stable for its lifetime, unique across hosts. */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";

export function newReplicaId(configured?: string): string {
  return configured?.trim() || `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
}
