/**
 * Level 1 of progressive disclosure (seeds 001, 003): one line per skill for the system prompt, within a token
 * budget. With many skills it degrades to shorter descriptions, then to names only, then to as many names as fit.
 */
import type { Skill } from "./types.js";

// The agent's prompt puts this under its own "Available Skills" heading.
const HEADER = [
  "Skills are know-how and scripts for particular tasks. Before using one, call get_skill_info(skill_name) to read",
  "it; [Executable] skills also have scripts to run with run_skill_script. list_skills shows them all.",
].join("\n");
const SHORT_DESCRIPTION_CHARS = 60;

/** Rough count used for budgets: about four characters a token for English text. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function typeTag(skill: Skill): string {
  return skill.type === "executable" ? "[Executable]" : "[Instruction]";
}

/** `skills` sorted by name; "" when there are none. */
export function renderSkillCatalog(skills: readonly Skill[], budgetTokens: number): string {
  if (skills.length === 0) return "";
  const fits = (body: string) => estimateTokens(`${HEADER}\n${body}`) <= budgetTokens;
  const full = skills.map((s) => skillLine(s, s.description)).join("\n");
  if (fits(full)) return `${HEADER}\n${full}`;
  const short = skills.map((s) => skillLine(s, shorten(s.description, SHORT_DESCRIPTION_CHARS))).join("\n");
  if (fits(short)) return `${HEADER}\n${short}`;
  return `${HEADER}\n${namesWithin(skills, budgetTokens * 4 - HEADER.length - 1)}`;
}

function skillLine(skill: Skill, description: string): string {
  const tool = skill.meta.system && skill.meta.toolName ? ` (tool: ${skill.meta.toolName})` : "";
  return `- ${skill.name} ${typeTag(skill)}: ${description}${tool}`;
}

/** The first sentence, or a cut at a word boundary, within `max` characters. */
export function shorten(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  // CJK full stops end a sentence without a following space.
  const sentence = /^.+?(?:[.!?](?=\s|$)|[。！？])/u.exec(oneLine)?.[0] ?? oneLine;
  if (sentence.length <= max) return sentence;
  const space = sentence.lastIndexOf(" ", max - 1);
  return `${sentence.slice(0, space > max / 2 ? space : max - 1)}…`;
}

/** Names grouped by type, as many as fit in `maxChars`, then a count of the rest. */
function namesWithin(skills: readonly Skill[], maxChars: number): string {
  const sections: string[] = [];
  let used = 0;
  let shown = 0;
  for (const type of ["instruction", "executable"] as const) {
    const label = type === "executable" ? "[Executable]" : "[Instruction]";
    const names: string[] = [];
    for (const skill of skills.filter((s) => s.type === type)) {
      // Room is kept for the closing "…and N more" line.
      if (used + label.length + skill.name.length + 40 > maxChars) break;
      names.push(skill.name);
      used += skill.name.length + 2;
      shown++;
    }
    if (names.length > 0) {
      sections.push(`${label} ${names.join(", ")}`);
      used += label.length + 1;
    }
  }
  const rest = skills.length - shown;
  if (rest > 0) sections.push(`…and ${rest} more: call list_skills to see them.`);
  return sections.join("\n");
}
