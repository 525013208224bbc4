/**
 * Markdown as models write it -> WhatsApp's own formatting: *bold*, _italic_, ~strike~, `code` and ``` blocks.
 * Headings become bold lines and links "text (url)". Code is left exactly as written. The result is never longer
 * than the Markdown, so a chunk cut to the limit before formatting still fits after it.
 */

const FENCE = /^\s*```/;
const INLINE_CODE = /(`[^`\n]+`)/;

export function markdownToWhatsApp(markdown: string): string {
  let inFence = false;
  return markdown
    .split("\n")
    .map((line) => {
      if (FENCE.test(line)) {
        inFence = !inFence;
        return line;
      }
      return inFence ? line : formatLine(line);
    })
    .join("\n");
}

function formatLine(line: string): string {
  const heading = /^#{1,6}\s+(.+?)\s*#*$/.exec(line);
  if (heading) return `*${formatSpans(heading[1]!.replace(/\*\*|__/g, ""))}*`;
  // Odd parts are inline code, left alone.
  return line
    .split(INLINE_CODE)
    .map((part, index) => (index % 2 === 1 ? part : formatSpans(part)))
    .join("");
}

function formatSpans(text: string): string {
  const BOLD = "\u0000";
  return text
    .replace(/\[([^\]\n]+)\]\((https?:\/\/[^)\s]+)\)/g, (_m, label: string, url: string) => (label === url ? url : `${label} (${url})`))
    .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__/g, (_m, a?: string, b?: string) => `${BOLD}${a ?? b}${BOLD}`)
    .replace(/(^|[^\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])/g, "$1_$2_")
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, "~$1~")
    .replaceAll(BOLD, "*");
}
