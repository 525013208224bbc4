/**
 * What a fetched resource says, as text for the model: an HTML page's main content (Readability on a linkedom DOM)
 * as Markdown (turndown), text, JSON and Markdown as they are, a PDF's text (unpdf, pdf.js underneath); any other
 * binary is refused, naming its content type.
 */
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";
import { extractText, getDocumentProxy } from "unpdf";
import { WebError } from "./errors.js";

export interface Extracted {
  title?: string;
  markdown: string;
}

const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
turndown.remove(["script", "style", "noscript", "iframe", "form", "svg"] as unknown as TurndownService.Filter);

const TEXT_TYPES = /^(text\/(plain|markdown|x-markdown|csv)|application\/(json|[a-z.+-]*\+json|xml|[a-z.+-]*\+xml)|text\/xml)$/;

export async function extract(contentType: string, body: Buffer): Promise<Extracted> {
  const [mime = "", ...params] = contentType.toLowerCase().split(";").map((s) => s.trim());
  const charset = params.find((p) => p.startsWith("charset="))?.slice(8).replace(/"/g, "");
  if (mime === "text/html" || mime === "application/xhtml+xml") return htmlToMarkdown(decode(body, charset));
  if (TEXT_TYPES.test(mime) || mime.startsWith("text/")) return { markdown: decode(body, charset) };
  if (mime === "application/pdf") return pdfText(body);
  throw new WebError(`The resource is ${mime || "of an unknown type"}, which web_fetch cannot read (it reads HTML, text, JSON, Markdown and PDF)`, "unsupported_type");
}

function decode(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

/** Readability's article when it finds one; otherwise the whole body, still without scripts, styles and forms. */
export function htmlToMarkdown(html: string): Extracted {
  const { document } = parseHTML(html);
  const pageTitle = document.title?.trim() || undefined;
  const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], { charThreshold: 200 }).parse();
  const content = article?.content ?? parseHTML(html).document.body?.innerHTML ?? "";
  const markdown = turndown.turndown(content).replace(/\n{3,}/g, "\n\n").trim();
  const title = article?.title?.trim() || pageTitle;
  return title ? { title, markdown } : { markdown };
}

async function pdfText(body: Buffer): Promise<Extracted> {
  try {
    const pdf = await getDocumentProxy(new Uint8Array(body));
    const { text } = await extractText(pdf, { mergePages: true });
    return { markdown: text.trim() };
  } catch (err) {
    throw new WebError(`The PDF could not be read: ${err instanceof Error ? err.message : String(err)}`, "unsupported_type");
  }
}
