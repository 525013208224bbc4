/**
 * Skill type detection (instruction-only, native script or WebAssembly), from the file list taken at load time: no
 * file-system access, so it can run once per load and its answer be cached on the skill.
 */
import type { SkillResources, SkillType } from "./types.js";

const WASM_CANDIDATES = ["skill.wasm", "wasm/skill.wasm", "module.wasm", "main.wasm"];
const NATIVE_EXTENSIONS = ["py", "sh", "bash"];
const NATIVE_BASENAMES = ["script", "main", "index"];
const NATIVE_CANDIDATES = ["", "src/"].flatMap((folder) =>
  NATIVE_EXTENSIONS.flatMap((ext) => NATIVE_BASENAMES.map((base) => `${folder}${base}.${ext}`)),
);
const FALLBACK_SCRIPT = /^(scripts|src)\/.+\.(py|sh|bash|js|mjs)$/;

export interface DetectedType {
  type: SkillType;
  /** The artifact that makes the skill executable, relative to the skill folder. */
  entry?: string;
}

/**
 * Executable when it holds a WASM module (the named candidates, then any .wasm) or a native script
 * (script|main|index .py/.sh/.bash at the top, then under src/, then any script under scripts/ or src/).
 * `files` are sorted paths relative to the skill folder.
 */
export function detectSkillType(files: readonly string[]): DetectedType {
  const present = new Set(files);
  const entry =
    WASM_CANDIDATES.find((f) => present.has(f)) ??
    files.find((f) => f.endsWith(".wasm")) ??
    NATIVE_CANDIDATES.find((f) => present.has(f)) ??
    files.find((f) => FALLBACK_SCRIPT.test(f));
  return entry === undefined ? { type: "instruction" } : { type: "executable", entry };
}

/** The files of scripts/, references/ and assets/. */
export function groupResources(files: readonly string[]): SkillResources {
  const under = (folder: string) => files.filter((f) => f.startsWith(`${folder}/`));
  return { scripts: under("scripts"), references: under("references"), assets: under("assets") };
}
