/** Splitting SKILL.md into YAML frontmatter (gray-matter with the `yaml` package) and its Markdown body. */
import matter from "gray-matter";
import { parse as parseYaml, YAMLParseError } from "yaml";

export type ParsedSkillFile = { ok: true; data: unknown; body: string } | { ok: false; error: string };

// Passing options also turns off gray-matter's unbounded cache keyed by file content.
const MATTER_OPTIONS = { engines: { yaml: (text: string) => parseYaml(text) as object } };

/** Tolerates a byte-order mark and CRLF line endings; a file without frontmatter yields empty data. */
export function parseSkillFile(text: string): ParsedSkillFile {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  if (!normalized.startsWith("---")) return { ok: false, error: "no YAML frontmatter: SKILL.md must start with ---" };
  try {
    const file = matter(normalized, MATTER_OPTIONS);
    return { ok: true, data: file.data, body: file.content.trim() };
  } catch (err) {
    return { ok: false, error: `broken YAML frontmatter: ${describeYamlError(err)}` };
  }
}

/** The parser's first line, with its position as a line of SKILL.md (gray-matter keeps the newline after ---). */
function describeYamlError(err: unknown): string {
  if (!(err instanceof YAMLParseError)) return err instanceof Error ? err.message : String(err);
  const reason = (err.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
  const line = err.linePos?.[0].line;
  return line === undefined ? reason : `${reason} (SKILL.md line ${line})`;
}
