/** File names that come from chats or the model, made safe to use as one path segment on disk. */

/** A name that stays one path segment: no separators, no control characters, not "." or "..". */
export function safeFileName(name: string): string {
  const cleaned = name.replace(/[/\\\p{Cc}]/gu, "_").trim().slice(0, 200);
  return cleaned === "" || /^\.+$/.test(cleaned) ? "file" : cleaned;
}
