/**
 * Who the sandboxed code is on the host. A gateway running as an ordinary user runs bwrap as itself. A gateway
 * running as root drops to uid/gid 65534 (nobody) with setpriv before bwrap: inside a user namespace root would
 * still be host root to the kernel, which exempts it from the process limit and lets it open root's files through
 * any mount. The folders a run writes to are then handed to that uid first.
 */
import { lchown, readdir } from "node:fs/promises";
import { join } from "node:path";
import { SANDBOX_UID } from "./bwrap.js";

export function runsAsRoot(): boolean {
  return process.geteuid?.() === 0;
}

/** The command prefix that drops root before bwrap; empty for an ordinary user. */
export function dropRootPrefix(): string[] {
  return runsAsRoot() ? ["setpriv", `--reuid=${SANDBOX_UID}`, `--regid=${SANDBOX_UID}`, "--clear-groups", "--"] : [];
}

/** Makes `dir` and everything in it belong to the sandbox user when root drops to it; nothing otherwise. */
export async function handOver(dir: string): Promise<void> {
  if (!runsAsRoot()) return;
  await lchown(dir, SANDBOX_UID, SANDBOX_UID);
  const entries = await readdir(dir, { recursive: true });
  for (const entry of entries) await lchown(join(dir, entry), SANDBOX_UID, SANDBOX_UID);
}
