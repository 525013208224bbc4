/**
 * The skill model shared by the loader, the registry, the runner and the skills handler.
 * A skill is a folder holding SKILL.md (Agent Skills specification) and optional scripts/, references/, assets/.
 */

/** Instruction-only skills are read and followed; executable ones also hold a script or WASM module to run. */
export type SkillType = "instruction" | "executable";

/** Where a skill was found; later origins override earlier ones (bundled < user < extra). */
export type SkillOrigin = "bundled" | "user" | "extra";

export interface SkillRoot {
  dir: string;
  origin: SkillOrigin;
}

/** The frontmatter fields the gateway uses, after validation. */
export interface SkillMeta {
  license?: string;
  compatibility?: string;
  metadata?: Record<string, string>;
  /** The spec's space-delimited `allowed-tools`, split. */
  allowedTools?: string[];
  /** `system: true`: the skill documents a built-in tool (`handler` + `tool-name`) instead of shipping one. */
  system: boolean;
  handler?: string;
  toolName?: string;
  category?: string;
}

/** Files of the three resource folders, as paths relative to the skill folder (`scripts/tz.py`). */
export interface SkillResources {
  scripts: string[];
  references: string[];
  assets: string[];
}

export interface Skill {
  name: string;
  description: string;
  /** The Markdown body of SKILL.md. */
  body: string;
  /** Absolute path of the skill folder. */
  dir: string;
  origin: SkillOrigin;
  meta: SkillMeta;
  resources: SkillResources;
  /** Detected once at load time and cached here: call paths never touch the file system to learn it. */
  type: SkillType;
  /** Executable skills: the artifact run_skill runs, relative to the skill folder. */
  entry?: string;
}

/**
 * fatal: the skill cannot load (broken YAML, no description). error: breaks the spec; the skill still loads
 * (lenient) but `skills validate` and install refuse it. warning: advice only.
 */
export type IssueLevel = "fatal" | "error" | "warning";

export interface SkillIssue {
  level: IssueLevel;
  /** The SKILL.md (or folder) the issue is about. */
  file: string;
  message: string;
}
