/**
 * Who the sandboxed code is on the host. A gateway running as an ordinary user runs bwrap as itself. A gateway
 * running as root drops to uid/gid 65534 (nobody) with setpriv before bwrap: inside a user namespace root would
 * still be host root to the kernel, which exempts it from the process limit and lets it open root's files through
 * any mount. The folders a run writes to are then handed to that uid first.
 */
import { chmod, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { SANDBOX_UID } from "./bwrap.js";

export function runsAsRoot(): boolean {
  return process.geteuid?.() === 0;
}

/** The command prefix that drops root before bwrap; empty for an ordinary user. */
export function dropRootPrefix(): string[] {
  return runsAsRoot() ? ["setpriv", `--reuid=${SANDBOX_UID}`, `--regid=${SANDBOX_UID}`, "--clear-groups", "--"] : [];
}

/**
 * Makes `dir` and everything in it belong to the sandbox user when root drops to it; nothing otherwise. GNU
 * chown walks the tree without following symlinks, even ones a concurrent run swaps in while it walks.
 */
export async function handOver(dir: string): Promise<void> {
  if (!runsAsRoot()) return;
  const { execa } = await import("execa");
  await execa("chown", ["-R", "-P", "--no-dereference", `${SANDBOX_UID}:${SANDBOX_UID}`, dir]);
  await chmod(dir, 0o700);
}

/**
 * When root drops to the sandbox user, bwrap (running as that user) must be able to walk to every folder it
 * mounts: throws, naming the folder and the fix, when one of `dir`'s parents is closed to others.
 */
export async function checkReachable(dir: string): Promise<void> {
  if (!runsAsRoot()) return;
  for (let parent = dirname(resolve(dir)); ; parent = dirname(parent)) {
    // A missing folder is created passable when the run starts.
    const info = await stat(parent).catch(() => undefined);
    if (info && (info.mode & 0o001) === 0 && info.uid !== SANDBOX_UID) {
      throw new Error(
        `the gateway runs as root and ${parent} is closed to the sandbox user (uid ${SANDBOX_UID}), so ${dir} cannot be mounted; ` +
          `allow passing through it (chmod o+x ${parent}) or run the gateway as an ordinary user`,
      );
    }
    if (parent === dirname(parent)) return;
  }
}
