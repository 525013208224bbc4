/**
 * Level 1 of progressive disclosure: one line per skill for the system prompt, within a token
 * budget. With many skills it degrades to shorter descriptions, then to names only, then to as many names as fit.
 */
import { fitsInTokens } from "../core/tokens.js";
import type { Skill } from "./types.js";

// The agent's prompt puts this under its own "Available Skills" heading.
const HEADER = [
  "Skills are know-how and scripts for particular tasks. Before using one, call get_skill_info(skill_name) to read",
  "it; [Executable] skills also have scripts to run with run_skill_script. list_skills shows them all.",
].join("\n");
const SHORT_DESCRIPTION_CHARS = 60;

export function typeTag(skill: Skill): string {
  return skill.type === "executable" ? "[Executable]" : "[Instruction]";
}

/** `skills` sorted by name; "" when there are none. */
export function renderSkillCatalog(skills: readonly Skill[], budgetTokens: number): string {
  if (skills.length === 0) return "";
  const fits = (body: string) => fitsInTokens(`${HEADER}\n${body}`, budgetTokens);
  const full = skills.map((s) => skillLine(s, s.description)).join("\n");
  if (fits(full)) return `${HEADER}\n${full}`;
  const short = skills.map((s) => skillLine(s, shorten(s.description, SHORT_DESCRIPTION_CHARS))).join("\n");
  if (fits(short)) return `${HEADER}\n${short}`;
  return `${HEADER}\n${namesWithin(skills, fits)}`;
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

/** Names grouped by type (instructions first), as many as fit in `fits`, then a count of the rest. */
function namesWithin(skills: readonly Skill[], fits: (body: string) => boolean): string {
  const ordered = [...skills.filter((s) => s.type === "instruction"), ...skills.filter((s) => s.type === "executable")];
  // Token counts are not additive, so the longest prefix that fits is found by bisection over whole renderings.
  let low = 0;
  let high = ordered.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(namesList(ordered.slice(0, mid), skills.length))) low = mid;
    else high = mid - 1;
  }
  return namesList(ordered.slice(0, low), skills.length);
}

function namesList(shown: readonly Skill[], total: number): string {
  const sections: string[] = [];
  for (const type of ["instruction", "executable"] as const) {
    const ofType = shown.filter((s) => s.type === type);
    if (ofType.length > 0) sections.push(`${typeTag(ofType[0]!)} ${ofType.map((s) => s.name).join(", ")}`);
  }
  const rest = total - shown.length;
  if (rest > 0) sections.push(`…and ${rest} more: call list_skills to see them.`);
  return sections.join("\n");
}
