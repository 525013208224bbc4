/**
 * A fake OpenAI-compatible speech and image endpoint: real HTTP on 127.0.0.1, port 0. POST /v1/audio/speech takes
 * OpenAI's JSON and answers with the audio bytes the test made; POST /v1/images/generations (JSON) and
 * /v1/images/edits (multipart) answer `{data: [{b64_json}]}` or `{data: [{url}]}`, the URL served by GET
 * /files/<name>; GET /v1/models answers. It rejects what OpenAI rejects: no key, a missing input or prompt.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";

export interface SpeechRequest {
  model: string;
  voice: string;
  input: string;
  response_format?: string | undefined;
  speed?: number | undefined;
}

export interface ImageCall {
  path: "generations" | "edits";
  prompt: string;
  size?: string | undefined;
  n?: number | undefined;
  /** The uploaded image of an edit. */
  image?: { name: string; type: string; data: Buffer };
}

export type SpeechReply = { audio: Buffer } | { status: number };
/** `count`: how many pictures to answer with (a model may make fewer than asked); default the `n` asked for. */
export type ImageReply = { as: "b64_json"; count?: number } | { as: "url"; host?: string } | { status: number };

export interface FakeMediaAI {
  url: string;
  apiKey: string;
  speech: SpeechRequest[];
  images: ImageCall[];
  speakWith(answer: (request: SpeechRequest) => SpeechReply): void;
  drawWith(answer: (call: ImageCall) => ImageReply): void;
  close(): Promise<void>;
}

const speechSchema = z.object({
  model: z.string().min(1),
  voice: z.string().min(1),
  input: z.string().min(1).max(4096),
  response_format: z.enum(["mp3", "opus", "aac", "flac", "wav", "pcm"]).optional(),
  speed: z.number().min(0.25).max(4).optional(),
});
const generationSchema = z.object({ model: z.string().min(1), prompt: z.string().min(1), size: z.string().optional(), n: z.number().int().min(1).max(10).optional() });

export async function startFakeMediaAI(picture: Buffer): Promise<FakeMediaAI> {
  const apiKey = "sk-fake-media-key";
  let speak: (request: SpeechRequest) => SpeechReply = () => ({ status: 500 });
  let draw: (call: ImageCall) => ImageReply = () => ({ as: "b64_json" });
  const files = new Map<string, Buffer>();

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => send(res, 500, { error: { message: `fake media: ${String(err)}` } }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0]!;
    if (req.method === "GET" && path.startsWith("/files/")) {
      const file = files.get(path.slice("/files/".length));
      if (!file) return send(res, 404, { error: { message: "no such file" } });
      res.writeHead(200, { "content-type": "image/png" }).end(file);
      return;
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) return send(res, 401, { error: { message: "Incorrect API key provided" } });
    const body = await readBody(req);
    if (req.method === "GET" && path === "/v1/models") return send(res, 200, { object: "list", data: [{ id: "fake-image", object: "model" }] });
    if (req.method === "POST" && path === "/v1/audio/speech") {
      const parsed = speechSchema.safeParse(JSON.parse(body.toString("utf8")));
      if (!parsed.success) return send(res, 400, { error: { message: parsed.error.message } });
      fake.speech.push(parsed.data);
      const reply = speak(parsed.data);
      if ("status" in reply) return send(res, reply.status, { error: { message: "the speech service is down" } });
      res.writeHead(200, { "content-type": "application/octet-stream" }).end(reply.audio);
      return;
    }
    if (req.method === "POST" && (path === "/v1/images/generations" || path === "/v1/images/edits")) {
      const call = path.endsWith("generations") ? generationOf(body) : await editOf(req, body);
      if (typeof call === "string") return send(res, 400, { error: { message: call } });
      fake.images.push(call);
      const reply = draw(call);
      if ("status" in reply) return send(res, reply.status, { error: { message: "the image service is down" } });
      const images = Array.from({ length: ("count" in reply ? reply.count : undefined) ?? call.n ?? 1 }, (_, i) => {
        if (reply.as === "b64_json") return { b64_json: picture.toString("base64") };
        const name = `${fake.images.length}-${i}.png`;
        files.set(name, picture);
        return { url: `http://${reply.host ?? `127.0.0.1:${port}`}/files/${name}` };
      });
      return send(res, 200, { created: 1, data: images });
    }
    send(res, 404, { error: { message: `no route for ${req.method} ${path}` } });
  }

  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const fake: FakeMediaAI = {
    url: `http://127.0.0.1:${port}/v1`,
    apiKey,
    speech: [],
    images: [],
    speakWith: (answer) => void (speak = answer),
    drawWith: (answer) => void (draw = answer),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

function generationOf(body: Buffer): ImageCall | string {
  const parsed = generationSchema.safeParse(JSON.parse(body.toString("utf8")));
  return parsed.success ? { path: "generations", prompt: parsed.data.prompt, size: parsed.data.size, n: parsed.data.n } : parsed.error.message;
}

/** Multipart, decoded by the platform's own parser (the one fetch uses). */
async function editOf(req: IncomingMessage, body: Buffer): Promise<ImageCall | string> {
  const form = await new Response(body, { headers: { "content-type": req.headers["content-type"] ?? "" } }).formData();
  const image = form.get("image");
  const prompt = form.get("prompt");
  if (!(image instanceof File)) return "image: a file is required";
  if (typeof prompt !== "string" || prompt === "") return "prompt: required";
  const n = form.get("n");
  const size = form.get("size");
  return {
    path: "edits",
    prompt,
    ...(typeof size === "string" ? { size } : {}),
    ...(typeof n === "string" ? { n: Number(n) } : {}),
    image: { name: image.name, type: image.type, data: Buffer.from(await image.arrayBuffer()) },
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (!res.headersSent) res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}
