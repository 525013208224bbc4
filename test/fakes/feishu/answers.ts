/** How the fake Open API answers: JSON (Feishu's `{code, msg, data}`), or the bytes of a resource. */
import type { Refusal } from "./content-rules.js";

export type Answer = { status: number; json: unknown; headers?: Record<string, string> } | { status: number; bytes: Buffer; mime: string };

export function json(status: number, body: unknown): Answer {
  return { status, json: body };
}

export function refusal(r: Refusal): Answer {
  return json(r.status, { code: r.code, msg: r.msg });
}

export function success(data: object = {}): Answer {
  return json(200, { code: 0, msg: "success", data });
}
