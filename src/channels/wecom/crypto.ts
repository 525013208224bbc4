/**
 * WeCom's callback encryption (加解密方案), with `@wecom/crypto` doing the cipher: msg_signature is the SHA-1 of the
 * sorted token, timestamp, nonce and ciphertext; the ciphertext is AES-256-CBC under base64(EncodingAESKey + "="),
 * and its plaintext ends with the corp id (the ReceiveId), which must be ours. The signature is checked before
 * anything is decrypted.
 */
import { decrypt, getSignature } from "@wecom/crypto";
import { tokenMatches } from "../../infra/http/auth.js";

export interface CallbackKeys {
  token: string;
  aesKey: string;
  corpId: string;
}

export interface SignedQuery {
  msg_signature?: string | undefined;
  timestamp?: string | undefined;
  nonce?: string | undefined;
}

export type Opened = { ok: true; plaintext: string } | { ok: false; status: 400 | 401 | 403; reason: string };

/** Checks the signature over `encrypted`, then decrypts it and checks the corp id inside. */
export function openCallback(encrypted: string, query: SignedQuery, keys: CallbackKeys): Opened {
  const { msg_signature: signature, timestamp, nonce } = query;
  if (!signature || !timestamp || !nonce) return { ok: false, status: 401, reason: "msg_signature, timestamp or nonce is missing" };
  if (!tokenMatches(signature, getSignature(keys.token, timestamp, nonce, encrypted))) {
    return { ok: false, status: 401, reason: "the msg_signature does not match (check WECOM_TOKEN)" };
  }
  let opened: { message: string; id: string };
  try {
    opened = decrypt(keys.aesKey, encrypted);
  } catch {
    return { ok: false, status: 400, reason: "the payload does not decrypt with the configured EncodingAESKey" };
  }
  if (opened.id !== keys.corpId) return { ok: false, status: 403, reason: "the payload was encrypted for another corp id" };
  return { ok: true, plaintext: opened.message };
}
