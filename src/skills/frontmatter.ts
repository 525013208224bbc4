/**
 * Validation of SKILL.md frontmatter against the Agent Skills specification, plus the gateway's own fields
 * (system, handler, tool-name, category). Lenient like the spec's client guide: only a missing or unusable
 * description stops a skill from loading; every other problem is reported and the offending field dropped.
 */
import { z } from "zod";
import type { IssueLevel, SkillMeta } from "./types.js";

export const NAME_MAX = 64;
export const DESCRIPTION_MAX = 1024;
export const COMPATIBILITY_MAX = 500;

/** Why `name` is not a valid skill name, or undefined. */
export function skillNameProblem(name: string): string | undefined {
  if (name.length === 0 || name.length > NAME_MAX) return `must be 1-${NAME_MAX} characters (has ${name.length})`;
  if (!/^[a-z0-9-]+$/.test(name)) return "may only contain lowercase letters a-z, digits and '-'";
  if (name.startsWith("-") || name.endsWith("-")) return "must not start or end with '-'";
  if (name.includes("--")) return "must not contain '--'";
  return undefined;
}

/** Length in characters (code points), as the spec counts them, not UTF-16 units. */
const characters = (max: number) =>
  z.string().refine((s) => [...s].length <= max, { message: `must be at most ${max} characters` });

const frontmatterSchema = z.object({
  name: z
    .string()
    .superRefine((name, ctx) => {
      const problem = skillNameProblem(name);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .optional(),
  description: characters(DESCRIPTION_MAX).refine((s) => s.trim().length > 0, { message: "must not be empty" }),
  license: z.string().optional(),
  compatibility: characters(COMPATIBILITY_MAX).optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  "allowed-tools": z.string().optional(),
  system: z.boolean().optional(),
  handler: z.string().min(1).optional(),
  "tool-name": z.string().min(1).optional(),
  category: z.string().min(1).optional(),
});

type Frontmatter = z.output<typeof frontmatterSchema>;
const KNOWN_FIELDS = new Set(Object.keys(frontmatterSchema.shape));

export interface FrontmatterIssue {
  level: IssueLevel;
  message: string;
}

export interface ValidatedFrontmatter {
  /** undefined when the skill cannot load (see issues). */
  value?: { name?: string; description: string; meta: SkillMeta };
  issues: FrontmatterIssue[];
}

/** Validates parsed frontmatter; `folderName` is the skill folder's name, which `name` must equal. */
export function validateFrontmatter(data: unknown, folderName: string): ValidatedFrontmatter {
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return { issues: [{ level: "fatal", message: "frontmatter must be a YAML mapping of fields" }] };
  }
  const fields = { ...(data as Record<string, unknown>) };
  const issues: FrontmatterIssue[] = [];
  for (const key of Object.keys(fields)) {
    if (!KNOWN_FIELDS.has(key)) issues.push({ level: "warning", message: `unknown field "${key}" is ignored` });
  }

  const first = frontmatterSchema.safeParse(fields);
  let parsed: Frontmatter;
  if (first.success) {
    parsed = first.data;
  } else {
    const bad = new Set<string>();
    for (const issue of first.error.issues) {
      const field = String(issue.path[0] ?? "(frontmatter)");
      bad.add(field);
      const shown = issue.code === "invalid_type" && fields[field] === undefined ? "is required" : issue.message;
      const where = issue.path.map(String).join(".");
      issues.push({ level: field === "description" ? "fatal" : "error", message: `${where}: ${shown}` });
    }
    if (bad.has("description")) return { issues };
    // Lenient loading: drop the fields that failed and keep the rest.
    for (const field of bad) delete fields[field];
    parsed = frontmatterSchema.parse(fields);
  }

  if (!("name" in data)) issues.push({ level: "error", message: "name: is required" });
  if (parsed.name !== undefined && parsed.name !== folderName) {
    issues.push({ level: "error", message: `name "${parsed.name}" does not match its folder "${folderName}"` });
  }
  const system = parsed.system === true;
  if (system && (!parsed.handler || !parsed["tool-name"])) {
    issues.push({ level: "error", message: "a system skill needs `handler` and `tool-name`" });
  }

  const meta: SkillMeta = {
    system,
    ...(parsed.license !== undefined && { license: parsed.license }),
    ...(parsed.compatibility !== undefined && { compatibility: parsed.compatibility }),
    ...(parsed.metadata !== undefined && { metadata: parsed.metadata }),
    ...(parsed["allowed-tools"] !== undefined && { allowedTools: parsed["allowed-tools"].split(/\s+/).filter(Boolean) }),
    ...(parsed.handler !== undefined && { handler: parsed.handler }),
    ...(parsed["tool-name"] !== undefined && { toolName: parsed["tool-name"] }),
    ...(parsed.category !== undefined && { category: parsed.category }),
  };
  const name = parsed.name;
  return { value: { ...(name !== undefined && { name }), description: parsed.description.trim(), meta }, issues };
}
