/** A long Markdown answer (headings, lists, bold, code blocks), for the streaming tests of every channel. */
export function longMarkdown(length = 12_000): string {
  const sections: string[] = [];
  for (let i = 1; sections.join("\n").length < length; i++) {
    sections.push(`## Part ${i}`, "", `Some **bold** and _italic_ words, \`inline code\` and a [link](https://example.com/${i}).`);
    sections.push("- first point of the list", "- second point, a little longer than the first one", "");
    sections.push("```python", `def part_${i}(x):`, "    return x * 2 < 10", "```", "");
  }
  return sections.join("\n").slice(0, length).trimEnd();
}
