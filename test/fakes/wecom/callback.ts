/**
 * WeCom's side of the callback, as its documentation describes it: the plaintext XML encrypted with the
 * EncodingAESKey and the corp id, wrapped in `<xml><ToUserName/><AgentID/><Encrypt/></xml>`, signed with SHA-1 of
 * the sorted token, timestamp, nonce and ciphertext in the query, and POSTed; the URL verification GET with an
 * encrypted `echostr`. Builders make the documented message XML.
 */
import { randomBytes } from "node:crypto";
import { encrypt, getSignature } from "@wecom/crypto";

export interface CallbackKeys {
  token: string;
  aesKey: string;
  corpId: string;
  agentId: number;
}

export interface PushOptions {
  /** Encrypt for another corp id (WeCom never would). */
  corpId?: string;
  /** Send this signature instead of the right one. */
  signature?: string;
}

export interface Answer {
  status: number;
  body: string;
}

let msgIds = 7_000_000_000_000_000_000n;

/** A MsgId as WeCom writes them: a 64-bit number, more digits than a double keeps. */
export function nextMsgId(): string {
  msgIds += 1n;
  return msgIds.toString();
}

const cdata = (value: string) => `<![CDATA[${value}]]>`;

/** The plaintext XML of a message from `from` to the app. */
export function messageXml(keys: CallbackKeys, from: string, msgType: string, fields: Record<string, string>): string {
  const inner = Object.entries(fields)
    .map(([name, value]) => (/^\d+$/.test(value) && name !== "Content" ? `<${name}>${value}</${name}>` : `<${name}>${cdata(value)}</${name}>`))
    .join("");
  const created = Math.floor(Date.now() / 1000);
  return `<xml><ToUserName>${cdata(keys.corpId)}</ToUserName><FromUserName>${cdata(from)}</FromUserName><CreateTime>${created}</CreateTime><MsgType>${cdata(msgType)}</MsgType>${inner}<AgentID>${keys.agentId}</AgentID></xml>`;
}

export function textXml(keys: CallbackKeys, from: string, content: string, msgId = nextMsgId()): string {
  return messageXml(keys, from, "text", { Content: content, MsgId: msgId });
}

export async function push(url: string, keys: CallbackKeys, plaintext: string, opts: PushOptions = {}): Promise<Answer> {
  const encrypted = encrypt(keys.aesKey, plaintext, opts.corpId ?? keys.corpId);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(6).toString("hex");
  const signature = opts.signature ?? getSignature(keys.token, timestamp, nonce, encrypted);
  const query = new URLSearchParams({ msg_signature: signature, timestamp, nonce });
  const body = `<xml><ToUserName>${cdata(keys.corpId)}</ToUserName><AgentID>${cdata(String(keys.agentId))}</AgentID><Encrypt>${cdata(encrypted)}</Encrypt></xml>`;
  const response = await fetch(`${url}?${query}`, { method: "POST", headers: { "content-type": "text/xml" }, body });
  return { status: response.status, body: await response.text() };
}

/** The URL verification request; `plain` is the echostr's plaintext the answer must be. */
export async function verifyUrl(url: string, keys: CallbackKeys, opts: PushOptions = {}): Promise<Answer & { plain: string }> {
  const plain = randomBytes(10).readBigUInt64BE().toString();
  const echostr = encrypt(keys.aesKey, plain, opts.corpId ?? keys.corpId);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(6).toString("hex");
  const signature = opts.signature ?? getSignature(keys.token, timestamp, nonce, echostr);
  const query = new URLSearchParams({ msg_signature: signature, timestamp, nonce, echostr });
  const response = await fetch(`${url}?${query}`);
  return { status: response.status, body: await response.text(), plain };
}
