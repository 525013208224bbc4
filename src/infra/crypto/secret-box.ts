/**
 * Encryption of secrets the gateway keeps in its store (OAuth tokens): AES-256-GCM with a key from
 * SWITCHBOARD_SECRET_KEY, else one generated once into the data dir (readable by the gateway's user only), so that
 * a copy of the store alone reveals nothing.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

export const SECRET_KEY_ENV = "SWITCHBOARD_SECRET_KEY";
export const SECRET_KEY_FILE = "secret.key";
const VERSION = "v1";

export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error("a SecretBox key is 32 bytes");
  }

  /** "v1.<iv>.<tag>.<ciphertext>", base64url parts; a fresh IV every time. */
  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), data].map((part) => (typeof part === "string" ? part : part.toString("base64url"))).join(".");
  }

  /** The plaintext; throws when the text was sealed with another key or altered. */
  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split(".");
    if (version !== VERSION || iv === undefined || tag === undefined || data === undefined) throw new Error("not a sealed secret");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    try {
      return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
    } catch (err) {
      throw new Error(`a stored secret cannot be decrypted: ${SECRET_KEY_ENV} or <dataDir>/${SECRET_KEY_FILE} changed since it was stored`, { cause: err });
    }
  }
}

/**
 * The key: SWITCHBOARD_SECRET_KEY hashed to 32 bytes (any passphrase works, so does a random string), else
 * <dataDir>/secret.key, created with mode 0600 on first use. Every process on one data dir reads the same file.
 */
export async function loadSecretBox(dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<SecretBox> {
  const fromEnv = env[SECRET_KEY_ENV];
  if (fromEnv) return new SecretBox(createHash("sha256").update(fromEnv, "utf8").digest());
  const file = join(dataDir, SECRET_KEY_FILE);
  try {
    // "wx": a second process starting at the same moment does not overwrite the first one's key.
    await writeFile(file, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new Error(`cannot create the secret key ${file}: ${(err as Error).message}`, { cause: err });
  }
  const hex = (await readFile(file, "utf8")).trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${file} is not a secret key (64 hex digits); remove it to make a new one, or set ${SECRET_KEY_ENV}`);
  return new SecretBox(Buffer.from(hex, "hex"));
}
