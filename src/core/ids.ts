/**
 * Short random identifiers (trace ids, history generations). Taken from randomUUID, whose random bytes Node draws
 * in batches: randomBytes goes into OpenSSL's generator on every call, ~10 us a message on the hot path.
 */
import { randomUUID } from "node:crypto";

/** Hex digits 0-11 of a version-4 UUID without its dashes are all random (the 13th is the version). */
const MAX_CHARS = 12;

/** `chars` (at most 12) random hex characters. */
export function randomHex(chars: number): string {
  if (chars > MAX_CHARS) throw new RangeError(`randomHex gives at most ${MAX_CHARS} characters, not ${chars}`);
  const uuid = randomUUID();
  return (uuid.slice(0, 8) + uuid.slice(9, 13)).slice(0, chars);
}
