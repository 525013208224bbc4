/**
 * Bot text to safe HTML for WebChat: marked (GitHub-flavoured Markdown: tables, strikethrough, task lists) and
 * DOMPurify, which keeps only harmless markup. Links open in a new tab without the page as opener; tables get a
 * scrolling wrapper so a wide one scrolls inside the bubble instead of widening the page.
 */
import DOMPurify from "dompurify";
import { marked } from "marked";

marked.setOptions({ gfm: true, breaks: true });

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer nofollow");
  }
});

/** The Markdown `text` as a sanitized fragment, ready to append to a bubble. */
export function render(text: string): DocumentFragment {
  const html = marked.parse(text, { async: false });
  const fragment = DOMPurify.sanitize(html, { RETURN_DOM_FRAGMENT: true, FORBID_TAGS: ["style", "form", "input"] });
  for (const table of fragment.querySelectorAll("table")) {
    const wrap = document.createElement("div");
    wrap.className = "table-wrap";
    table.replaceWith(wrap);
    wrap.append(table);
  }
  return fragment;
}
