/**
 * Resolving the names the model passes (script_name, ref_name) to files of a skill. Checked against the file
 * list taken at load time, which holds regular files only: a '..', an absolute path or a symlink can never
 * match, and nothing here touches the file system.
 */
import { ToolError } from "../core/tools.js";
import { interpreterName } from "./interpreter.js";
import type { Skill } from "./types.js";

/** Refuses names that try to leave the skill folder, with a reason the model can act on. */
function checkRelativeName(kind: string, name: string): string {
  const trimmed = name.trim().replace(/^\.\//, "");
  if (trimmed === "" || trimmed.includes("\0")) throw new ToolError(`${kind} must be a file name`, "invalid_input");
  if (/^([/\\]|[A-Za-z]:)/.test(trimmed)) {
    throw new ToolError(`${kind} "${name}" is an absolute path; give a name relative to the skill`, "denied");
  }
  if (trimmed.split(/[/\\]/).includes("..")) throw new ToolError(`${kind} "${name}" may not contain '..'`, "denied");
  return trimmed;
}

/** `tz.py` or `scripts/tz.py` to `scripts/tz.py`, when that is a runnable script of the skill. */
export function resolveScript(skill: Skill, scriptName: string): string {
  const name = checkRelativeName("script_name", scriptName).replace(/^scripts\//, "");
  const path = `scripts/${name}`;
  if (!skill.resources.scripts.includes(path)) {
    const known = skill.resources.scripts.map((s) => s.replace(/^scripts\//, ""));
    const list = known.length > 0 ? `Its scripts: ${known.join(", ")}.` : "It has no scripts.";
    throw new ToolError(`Skill "${skill.name}" has no script "${scriptName}". ${list}`, "invalid_input");
  }
  if (!interpreterName(path)) {
    throw new ToolError(`${path} cannot be run: only .py, .sh, .bash, .js, .mjs and .wasm scripts can`, "invalid_input");
  }
  return path;
}

/** `guide.md`, `references/guide.md` or `assets/template.txt` to a file of references/ or assets/. */
export function resolveReference(skill: Skill, refName: string): string {
  const name = checkRelativeName("ref_name", refName);
  const { references, assets } = skill.resources;
  const candidates = [name, `references/${name}`, `assets/${name}`];
  const found = candidates.find((c) => references.includes(c) || assets.includes(c));
  if (!found) {
    const known = [...references, ...assets];
    const list = known.length > 0 ? `Its files: ${known.join(", ")}.` : "It has no references or assets.";
    throw new ToolError(`Skill "${skill.name}" has no reference "${refName}". ${list}`, "invalid_input");
  }
  return found;
}
