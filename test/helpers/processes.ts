/** Host processes, read from /proc: for checking that nothing a sandboxed run started outlives it. */
import { readdir, readFile } from "node:fs/promises";

/** The pids of live (not zombie) host processes whose command line contains `marker`. */
export async function processesMatching(marker: string): Promise<number[]> {
  const pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
  const found: number[] = [];
  for (const pid of pids) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (!cmdline.replaceAll("\0", " ").includes(marker)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    if (state !== "" && state !== "Z") found.push(Number(pid));
  }
  return found;
}
