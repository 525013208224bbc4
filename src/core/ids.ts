/**
 * Identifiers: short random ones (trace ids, history generations), and the keys a platform deduplicates sends by.
 * The random ones come from randomUUID, whose random bytes Node draws in batches: randomBytes goes into OpenSSL's
 * generator on every call, ~10 us a message on the hot path.
 */
import { createHash, randomUUID } from "node:crypto";

/** Hex digits 0-11 of a version-4 UUID without its dashes are all random (the 13th is the version). */
const MAX_CHARS = 12;

/** `chars` (at most 12) random hex characters. */
export function randomHex(chars: number): string {
  if (chars > MAX_CHARS) throw new RangeError(`randomHex gives at most ${MAX_CHARS} characters, not ${chars}`);
  const uuid = randomUUID();
  return (uuid.slice(0, 8) + uuid.slice(9, 13)).slice(0, chars);
}

/**
 * The key of one part of a send (`chars` hex characters, at most 64), derived from the send's idempotency key: the
 * same on every attempt of that part, so a platform that deduplicates by it (Feishu's uuid, Discord's nonce) posts
 * the part once; different for each part.
 */
export function partKey(key: string, part: number | string, chars: number): string {
  return createHash("sha256").update(`${key}:${part}`).digest("hex").slice(0, chars);
}
