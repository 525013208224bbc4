/**
 * Pushing an event to a webhook exactly as Feishu does. With an encrypt key the body is `{"encrypt": ...}`:
 * AES-256-CBC with key SHA-256(encrypt key), a random IV prepended, PKCS7 padding, base64; and the request is
 * signed: X-Lark-Signature = hex SHA-256(timestamp + nonce + encrypt key + body), over the body as sent.
 */
import { createCipheriv, createHash, randomBytes } from "node:crypto";

export interface PushOptions {
  encryptKey?: string;
  /** Sign with this key instead (a forged or stale signature). */
  signWith?: string;
  /** Send the encrypted body without the signature headers. */
  unsigned?: boolean;
  /** Send this exact body instead of the encoded payload (bad input). */
  rawBody?: string;
}

export interface WebhookAnswer {
  status: number;
  body: unknown;
}

export function encryptForFeishu(plain: string, encryptKey: string): string {
  const key = createHash("sha256").update(encryptKey).digest();
  const iv = randomBytes(16);
  const cipher = createCipheriv("aes-256-cbc", key, iv);
  return Buffer.concat([iv, cipher.update(plain, "utf8"), cipher.final()]).toString("base64");
}

function signForFeishu(timestamp: string, nonce: string, encryptKey: string, body: string): string {
  return createHash("sha256").update(timestamp + nonce + encryptKey + body).digest("hex");
}

export async function pushWebhook(url: string, payload: unknown, opts: PushOptions = {}): Promise<WebhookAnswer> {
  const plain = JSON.stringify(payload);
  const body = opts.rawBody ?? (opts.encryptKey ? JSON.stringify({ encrypt: encryptForFeishu(plain, opts.encryptKey) }) : plain);
  const headers: Record<string, string> = { "content-type": "application/json" };
  const signingKey = opts.signWith ?? opts.encryptKey;
  if (signingKey && !opts.unsigned) {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = randomBytes(8).toString("hex");
    headers["x-lark-request-timestamp"] = timestamp;
    headers["x-lark-request-nonce"] = nonce;
    headers["x-lark-signature"] = signForFeishu(timestamp, nonce, signingKey, body);
  }
  const response = await fetch(url, { method: "POST", headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    // Not JSON: keep the text.
  }
  return { status: response.status, body: parsed };
}
