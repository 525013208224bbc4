/**
 * Installing a skill into the user skills folder from a local folder, a .zip/.tar.gz archive or a git URL.
 * The skill is staged inside the user folder (a dot-folder the registry ignores), validated like
 * `skills validate`, and only then moved into place, so a broken or refused skill never lands.
 */
import { cp, lstat, mkdir, mkdtemp, readdir, readFile, rename, rm } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { archiveKind, unpackArchive } from "./archive.js";
import { skillNameProblem } from "./frontmatter.js";
import { loadSkill, SKILL_FILE } from "./loader.js";
import { parseSkillFile } from "./parser.js";
import type { SkillRegistry } from "./registry.js";
import type { SkillType } from "./types.js";

const GIT_URL = /^(?:(?:https?|ssh|git|file):\/\/|[\w.-]+@[\w.-]+:)/;
const GIT_TIMEOUT_MS = 120_000;

export class InstallError extends Error {
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`cannot install ${source}:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "InstallError";
  }
}

export interface InstallReport {
  name: string;
  dir: string;
  type: SkillType;
  /** An earlier install of the same name was replaced. */
  replaced: boolean;
  scripts: string[];
  warnings: string[];
}

export interface InstallTarget {
  userDir: string;
  /** The loaded skills, to refuse replacing bundled and system skills. */
  registry: SkillRegistry;
}

export async function installSkill(source: string, target: InstallTarget): Promise<InstallReport> {
  await mkdir(target.userDir, { recursive: true });
  const staging = await mkdtemp(join(target.userDir, ".install-"));
  try {
    // A dot-name can never be a skill name, so the rename below cannot collide with it.
    const unpacked = join(staging, ".source");
    await fetchSource(source, unpacked);
    const root = await findSkillRoot(source, unpacked);
    // The installed folder is named after the skill, so a folder like "my-skill-main" still validates.
    const placed = join(staging, await declaredName(root, root === unpacked ? sourceName(source) : basename(root)));
    await rename(root, placed);
    return await place(source, placed, target);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function fetchSource(source: string, into: string): Promise<void> {
  if (GIT_URL.test(source)) return cloneGit(source, into);
  const path = resolve(source);
  const stats = await lstat(path).catch(() => undefined);
  if (stats?.isDirectory()) {
    await cp(path, into, { recursive: true, filter: async (src) => !(await lstat(src)).isSymbolicLink() });
    return;
  }
  const kind = archiveKind(path);
  if (stats?.isFile() && kind) {
    await mkdir(into);
    try {
      await unpackArchive(path, kind, into);
    } catch (err) {
      throw new InstallError(source, [(err as Error).message]);
    }
    return;
  }
  const what = stats ? "is neither a folder nor a .zip, .tar.gz or .tgz archive" : "does not exist";
  throw new InstallError(source, [`${path} ${what} (a git URL also works)`]);
}

async function cloneGit(url: string, into: string): Promise<void> {
  const { execa } = await import("execa");
  const git = await execa("git", ["--version"], { reject: false });
  if (git.failed) throw new InstallError(url, ["installing from a git URL needs git on the PATH"]);
  const clone = await execa("git", ["-c", "protocol.ext.allow=never", "clone", "--depth", "1", "--quiet", "--", url, into], {
    reject: false,
    timeout: GIT_TIMEOUT_MS,
    env: { GIT_TERMINAL_PROMPT: "0" },
    stdin: "ignore",
  });
  if (clone.failed) throw new InstallError(url, [`git clone failed: ${clone.stderr.trim() || clone.shortMessage}`]);
  await rm(join(into, ".git"), { recursive: true, force: true });
}

/** SKILL.md at the top, or in the one folder at the top (as in a GitHub archive). */
async function findSkillRoot(source: string, unpacked: string): Promise<string> {
  if (await isFile(join(unpacked, SKILL_FILE))) return unpacked;
  const entries = (await readdir(unpacked, { withFileTypes: true })).filter(
    (e) => !e.name.startsWith(".") && e.name !== "__MACOSX",
  );
  const only = entries.length === 1 ? entries[0] : undefined;
  if (only?.isDirectory() && (await isFile(join(unpacked, only.name, SKILL_FILE)))) return join(unpacked, only.name);
  throw new InstallError(source, [`no ${SKILL_FILE} at the top or in a single top-level folder`]);
}

/**
 * The frontmatter's name when it is a valid one, else `fallback` when that is (validation then says what is
 * wrong with the name); never a name like ".." that would place the folder elsewhere.
 */
async function declaredName(root: string, fallback: string): Promise<string> {
  const parsed = parseSkillFile(await readFile(join(root, SKILL_FILE), "utf8"));
  const data = parsed.ok ? (parsed.data as { name?: unknown } | null) : null;
  const name = data?.name;
  if (typeof name === "string" && !skillNameProblem(name)) return name;
  return skillNameProblem(fallback) ? "unnamed-skill" : fallback;
}

/** "pdf-tools" for /x/pdf-tools, /x/pdf-tools.zip, /x/pdf-tools.tar.gz or https://host/pdf-tools.git. */
function sourceName(source: string): string {
  return basename(source.replace(/[/\\]+$/, "")).replace(/\.(zip|tar\.gz|tgz|git)$/i, "");
}

async function place(source: string, staged: string, target: InstallTarget): Promise<InstallReport> {
  const loaded = await loadSkill(staged, "user");
  const skill = loaded?.skill;
  const refusals = (loaded?.issues ?? []).filter((i) => i.level !== "warning").map((i) => i.message);
  if (!skill || refusals.length > 0) throw new InstallError(source, refusals.length > 0 ? refusals : ["not a skill"]);

  const others = target.registry.candidates(skill.name);
  if (others.some((s) => s.origin === "bundled")) {
    throw new InstallError(source, [`"${skill.name}" is a bundled skill and cannot be replaced by an install`]);
  }
  if (others.some((s) => s.meta.system)) {
    throw new InstallError(source, [`"${skill.name}" is a system skill and cannot be replaced by an install`]);
  }
  const warnings = (loaded?.issues ?? []).map((i) => i.message);
  const extra = others.find((s) => s.origin === "extra");
  if (extra) warnings.push(`the skill of the same name in ${extra.dir} takes precedence over this install`);

  const dir = join(target.userDir, skill.name);
  const replaced = await exists(dir);
  // The old version goes into the staging folder, which is removed afterwards.
  if (replaced) await rename(dir, join(dirname(staged), ".replaced"));
  await rename(staged, dir);
  return { name: skill.name, dir, type: skill.type, replaced, scripts: skill.resources.scripts, warnings };
}

async function isFile(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined))?.isFile() ?? false;
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}
