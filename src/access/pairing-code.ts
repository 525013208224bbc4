/** Pairing codes: 8 characters from an alphabet without the look-alikes 0/O and 1/I, easy to read out and type. */
import { randomInt } from "node:crypto";

export const CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
export const CODE_LENGTH = 8;

export function generateCode(): string {
  let code = "";
  for (let i = 0; i < CODE_LENGTH; i += 1) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/** `abcd-2345` or `ABCD 2345` as `ABCD2345`; undefined when the input cannot be a code. */
export function normalizeCode(input: string): string | undefined {
  const code = input.replace(/[\s-]+/g, "").toUpperCase();
  if (code.length !== CODE_LENGTH) return undefined;
  return [...code].every((char) => CODE_ALPHABET.includes(char)) ? code : undefined;
}
