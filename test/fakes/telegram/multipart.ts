/**
 * A tolerant multipart/form-data parser for the fake Bot API. grammY writes header names in lower case without a
 * space (`content-disposition:form-data;name="x"`) and file names unquoted (`filename=my file.txt`), which strict
 * parsers such as busboy drop; this one reads both, quoted or not.
 */

export interface MultipartPart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

export function boundaryOf(contentType: string): string | undefined {
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

export function parseMultipart(body: Buffer, boundary: string): MultipartPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: MultipartPart[] = [];
  let start = body.indexOf(delimiter);
  while (start !== -1) {
    const contentStart = start + delimiter.length;
    if (body.subarray(contentStart, contentStart + 2).toString() === "--") break;
    const next = body.indexOf(delimiter, contentStart);
    if (next === -1) break;
    // Each part sits between "\r\n" after the delimiter and "\r\n" before the next one.
    const raw = body.subarray(contentStart + 2, next - 2);
    const part = parsePart(raw);
    if (part) parts.push(part);
    start = next;
  }
  return parts;
}

function parsePart(raw: Buffer): MultipartPart | undefined {
  const headerEnd = raw.indexOf("\r\n\r\n");
  if (headerEnd === -1) return undefined;
  const headers = new Map<string, string>();
  for (const line of raw.subarray(0, headerEnd).toString("utf8").split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get("content-disposition") ?? "";
  const name = paramOf(disposition, "name");
  if (name === undefined) return undefined;
  const filename = paramOf(disposition, "filename");
  const contentType = headers.get("content-type");
  return { name, ...(filename !== undefined ? { filename } : {}), ...(contentType ? { contentType } : {}), data: raw.subarray(headerEnd + 4) };
}

/** `key="quoted value"` or `key=unquoted value up to the next ;` */
function paramOf(header: string, key: string): string | undefined {
  const match = new RegExp(`(?:^|;)\\s*${key}=(?:"([^"]*)"|([^;]*))`, "i").exec(header);
  if (!match) return undefined;
  return match[1] ?? match[2]!.trim();
}
