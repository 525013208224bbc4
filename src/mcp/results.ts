/**
 * An MCP tool result in a form the model can read: text stays text, images stay images (the handler decides
 * whether the model sees them), embedded resources become their text or a short note, and everything is capped.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export type ResultPart = { type: "text"; text: string } | { type: "image"; data: string; mediaType: string };

export interface ToolCallResult {
  /** The server reported the call as failed (its content says why). */
  isError: boolean;
  parts: ResultPart[];
}

type ContentBlock = CallToolResult["content"][number];

export function convertResult(result: CallToolResult, maxChars: number): ToolCallResult {
  const parts = result.content.map(convertBlock);
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push({ type: "text", text: JSON.stringify(result.structuredContent) });
  }
  return { isError: result.isError === true, parts: capText(parts, maxChars) };
}

function convertBlock(block: ContentBlock): ResultPart {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
      return { type: "image", data: block.data, mediaType: block.mimeType };
    case "audio":
      return { type: "text", text: `[audio ${block.mimeType}, ${base64Bytes(block.data)} bytes: not shown]` };
    case "resource_link":
      return { type: "text", text: `[resource link ${block.uri}${block.name ? ` "${block.name}"` : ""}${block.description ? `: ${block.description}` : ""}]` };
    case "resource": {
      const { resource } = block;
      const mime = resource.mimeType ?? "unknown type";
      if ("text" in resource) return { type: "text", text: `[resource ${resource.uri} (${mime})]\n${resource.text}` };
      if (resource.mimeType?.startsWith("image/")) return { type: "image", data: resource.blob, mediaType: resource.mimeType };
      return { type: "text", text: `[resource ${resource.uri} (${mime}), ${base64Bytes(resource.blob)} bytes of binary data: not shown]` };
    }
    default:
      return { type: "text", text: `[content of type "${(block as { type: string }).type}": not shown]` };
  }
}

function base64Bytes(data: string): number {
  return Math.floor((data.length * 3) / 4);
}

/** Keeps the first `maxChars` characters of text across the parts, marking the cut; images pass untouched. */
function capText(parts: ResultPart[], maxChars: number): ResultPart[] {
  let left = maxChars;
  const kept: ResultPart[] = [];
  for (const part of parts) {
    if (part.type !== "text") {
      kept.push(part);
      continue;
    }
    if (left <= 0) continue;
    if (part.text.length <= left) {
      kept.push(part);
      left -= part.text.length;
      continue;
    }
    const dropped = parts.filter((p) => p.type === "text").reduce((sum, p) => sum + p.text.length, 0) - maxChars;
    kept.push({ type: "text", text: `${part.text.slice(0, left)}\n[... ${dropped} more characters cut: the output is capped at ${maxChars}]` });
    left = 0;
  }
  return kept;
}

/** All text parts joined, images as a one-line note: for the CLI and for models without vision. */
export function resultText(result: ToolCallResult, imageNote = (p: { mediaType: string; data: string }) => `[image ${p.mediaType}, ${base64Bytes(p.data)} bytes]`): string {
  return result.parts.map((p) => (p.type === "text" ? p.text : imageNote(p))).join("\n");
}
