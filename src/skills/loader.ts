/** Loading one skill folder: read SKILL.md, validate it, list its files and detect its type. */
import { readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { detectSkillType, groupResources } from "./detect.js";
import { listFolderFiles } from "./files.js";
import { skillNameProblem, validateFrontmatter } from "./frontmatter.js";
import { parseSkillFile } from "./parser.js";
import type { Skill, SkillIssue, SkillOrigin } from "./types.js";

export const SKILL_FILE = "SKILL.md";

export interface LoadedSkill {
  /** Absent when a fatal issue kept the skill from loading. */
  skill?: Skill;
  issues: SkillIssue[];
}

/** undefined when the folder holds no SKILL.md: it is not a skill. */
export async function loadSkill(dir: string, origin: SkillOrigin): Promise<LoadedSkill | undefined> {
  const file = join(dir, SKILL_FILE);
  const issues: SkillIssue[] = [];
  const report = (level: SkillIssue["level"], message: string) => issues.push({ level, file, message });

  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    report("fatal", `cannot read: ${code ?? String(err)}`);
    return { issues };
  }
  const parsed = parseSkillFile(text);
  if (!parsed.ok) {
    report("fatal", parsed.error);
    return { issues };
  }
  const folderName = basename(dir);
  const validated = validateFrontmatter(parsed.data, folderName);
  for (const issue of validated.issues) report(issue.level, issue.message);
  if (!validated.value) return { issues };

  // A valid declared name wins; otherwise the folder's name, if that one is valid.
  const name = validated.value.name ?? folderName;
  const nameProblem = skillNameProblem(name);
  if (nameProblem) {
    report("fatal", `no usable name: folder name "${folderName}" ${nameProblem}`);
    return { issues };
  }
  if (parsed.body === "") report("warning", "the body is empty: the skill gives the model no instructions");

  const listing = await listFolderFiles(dir);
  for (const link of listing.symlinks) report("warning", `symbolic link ${link} is ignored`);
  if (listing.truncated) report("warning", "too many files or folders too deep: the file list was cut short");
  const detected = detectSkillType(listing.files);

  const skill: Skill = {
    name,
    description: validated.value.description,
    body: parsed.body,
    dir,
    origin,
    meta: validated.value.meta,
    resources: groupResources(listing.files),
    type: detected.type,
    ...(detected.entry !== undefined && { entry: detected.entry }),
  };
  return { skill, issues };
}
