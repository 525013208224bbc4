/**
 * OpenAI-compatible image generation and editing. Results come as base64 (b64_json) or as a URL; a URL is fetched
 * only when it is on the configured endpoint's own host, so an answer can never point the gateway at another
 * address (a private one, say).
 */
import { z } from "zod";
import type { ImagesConfig } from "./config.js";

export interface ImageRequest {
  prompt: string;
  size?: string | undefined;
  n?: number | undefined;
}

export interface EditRequest extends ImageRequest {
  image: { data: Buffer; name: string; mime: string };
}

const resultSchema = z.object({
  data: z.array(z.union([z.object({ b64_json: z.string().min(1) }), z.object({ url: z.url() })])).min(1),
});

export class ImageClient {
  constructor(private readonly config: ImagesConfig & { baseUrl: string }) {}

  get host(): string {
    return new URL(this.config.baseUrl).host;
  }

  generate(request: ImageRequest, signal?: AbortSignal): Promise<Buffer[]> {
    const { model } = this.config;
    const body = JSON.stringify({ model, prompt: request.prompt, ...optional(request) });
    return this.call("generations", { body, headers: { "content-type": "application/json" } }, signal);
  }

  edit(request: EditRequest, signal?: AbortSignal): Promise<Buffer[]> {
    const form = new FormData();
    form.set("model", this.config.model);
    form.set("prompt", request.prompt);
    for (const [key, value] of Object.entries(optional(request))) form.set(key, String(value));
    form.set("image", new Blob([new Uint8Array(request.image.data)], { type: request.image.mime }), request.image.name);
    return this.call("edits", { body: form, headers: {} }, signal);
  }

  private async call(path: "generations" | "edits", init: { body: string | FormData; headers: Record<string, string> }, signal?: AbortSignal): Promise<Buffer[]> {
    const response = await this.fetch(`${this.config.baseUrl.replace(/\/+$/, "")}/images/${path}`, { method: "POST", ...init }, signal);
    const parsed = resultSchema.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) throw new Error(`the image endpoint at ${this.host} answered /images/${path} with something other than images`);
    const images: Buffer[] = [];
    for (const item of parsed.data.data) images.push("b64_json" in item ? Buffer.from(item.b64_json, "base64") : await this.download(item.url, signal));
    return images;
  }

  private async download(url: string, signal?: AbortSignal): Promise<Buffer> {
    const { host } = new URL(url);
    if (host !== this.host) throw new Error(`the image endpoint answered with a link to ${host}; images are fetched only from ${this.host}`);
    return Buffer.from(await (await this.fetch(url, { method: "GET", headers: {} }, signal)).arrayBuffer());
  }

  private async fetch(url: string, init: RequestInit & { headers: Record<string, string> }, signal?: AbortSignal): Promise<Response> {
    const { apiKey, timeoutMs } = this.config;
    const deadline = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await fetch(url, {
        ...init,
        headers: { ...init.headers, ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        redirect: "error",
        signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new Error(`the image endpoint at ${this.host} could not be reached: ${deadline.aborted ? `no answer within ${timeoutMs / 1000} s` : (err as Error).message}`);
    }
    if (!response.ok) {
      const detail = (await response.text().catch(() => "")).slice(0, 200);
      throw new Error(`the image endpoint at ${this.host} answered HTTP ${response.status}${detail ? `: ${detail}` : ""}`);
    }
    return response;
  }
}

function optional(request: ImageRequest): Record<string, string | number> {
  return { ...(request.size !== undefined ? { size: request.size } : {}), ...(request.n !== undefined ? { n: request.n } : {}) };
}
