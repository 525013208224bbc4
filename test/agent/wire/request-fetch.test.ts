/**
 * The fetch the model providers get (undici's request behind fetch's signature), against a real local HTTP server:
 * what a model API call relies on from fetch must hold.
 */
import { EventEmitter, once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { APICallError, generateText } from "ai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { requestFetch } from "../../../src/agent/wire/request-fetch.js";
import { whenEmitted } from "../../helpers/wait.js";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

let server: Server;
let base: string;
let seen: Seen[];
let answer: (req: IncomingMessage, res: ServerResponse) => void;

beforeEach(async () => {
  seen = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      answer(req, res);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, "close");
});

const fetch = requestFetch({ timeoutMs: 5_000 });

describe("requestFetch", () => {
  it("refuses a malformed URL with fetch's TypeError", async () => {
    answer = (_req, res) => res.end("{}");
    const refused = await fetch("http//127.0.0.1/v1/chat", { method: "POST", body: "{}" }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(TypeError);
    expect(String(refused)).toMatch(/invalid url/i);
  });

  it("sends the method, headers and body, and answers with status, headers and body", async () => {
    answer = (_req, res) => {
      res.writeHead(201, [["content-type", "application/json"], ["set-cookie", "a=1"], ["set-cookie", "b=2"], ["x-request-id", "r-1"]]);
      res.end(JSON.stringify({ ok: true }));
    };
    const response = await fetch(`${base}/v1/chat?x=1`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-test", "x-empty": undefined } as unknown as Record<string, string>,
      body: JSON.stringify({ text: "天气 🌦" }),
    });

    expect(seen).toEqual([
      expect.objectContaining({ method: "POST", url: "/v1/chat?x=1", body: JSON.stringify({ text: "天气 🌦" }) }),
    ]);
    expect(seen[0]!.headers).toMatchObject({ "content-type": "application/json", authorization: "Bearer sk-test" });
    expect(seen[0]!.headers).not.toHaveProperty("x-empty");
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.statusText).toBe("Created");
    expect(response.headers.get("x-request-id")).toBe("r-1");
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await response.json()).toEqual({ ok: true });
  });

  it("takes headers as a Headers object or pairs, and a body as bytes", async () => {
    answer = (_req, res) => res.end("done");
    await fetch(base, { method: "PUT", headers: new Headers({ "x-one": "1" }), body: new TextEncoder().encode("bytes") });
    await fetch(base, { method: "PUT", headers: [["x-two", "2"]], body: new TextEncoder().encode("more").buffer });

    expect(seen.map((s) => [s.method, s.headers["x-one"] ?? s.headers["x-two"], s.body])).toEqual([
      ["PUT", "1", "bytes"],
      ["PUT", "2", "more"],
    ]);
  });

  it("drops the connection headers fetch would drop", async () => {
    answer = (_req, res) => res.end("ok");
    await fetch(base, { method: "POST", headers: { connection: "keep-alive", "keep-alive": "timeout=5", "x-kept": "yes" }, body: "{}" });

    expect(seen[0]!.headers["x-kept"]).toBe("yes");
    expect(seen[0]!.headers["keep-alive"]).toBeUndefined();
  });

  it("hands over a streamed body piece by piece, before the server has finished", async () => {
    let finish: () => void = () => {};
    answer = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n");
      finish = () => res.end("data: last\n\n");
    };
    const response = await fetch(base, { method: "POST", body: "{}" });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();

    expect((await reader.read()).value).toBe("data: first\n\n");
    finish();
    expect((await reader.read()).value).toBe("data: last\n\n");
    expect((await reader.read()).done).toBe(true);
  });

  it("decodes a gzip body, as fetch does", async () => {
    answer = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(gzipSync(JSON.stringify({ text: "compressed" })));
    };
    expect(await (await fetch(base)).json()).toEqual({ text: "compressed" });
  });

  it("gives what arrived of a gzip body cut short of its trailer, as fetch does", async () => {
    answer = (_req, res) => {
      res.writeHead(200, { "content-encoding": "gzip" });
      const whole = gzipSync("all of the text");
      res.end(whole.subarray(0, whole.length - 8)); // without the CRC and length
    };
    expect(await (await fetch(base)).text()).toBe("all of the text");
  });

  it("fails the body's read when a compressed body is corrupt", async () => {
    answer = (_req, res) => {
      res.writeHead(200, { "content-encoding": "gzip" });
      res.end("not gzip at all");
    };
    const response = await fetch(base);
    await expect(response.text()).rejects.toThrow();
  });

  it("does not follow a redirect (the conversation goes nowhere else), and gives a 204 no body", async () => {
    answer = (req, res) => {
      if (req.url === "/old") {
        res.writeHead(307, { location: "/new" });
        res.end();
      } else {
        res.writeHead(204);
        res.end();
      }
    };
    const redirected = await fetch(`${base}/old`, { method: "POST", body: "{}" });
    expect(redirected.status).toBe(307);
    expect(redirected.ok).toBe(false);
    expect(seen.map((s) => s.url)).toEqual(["/old"]);

    const empty = await fetch(`${base}/new`, { method: "POST", body: "{}" });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it("names a status without a standard text, for the SDK's error message", async () => {
    answer = (_req, res) => {
      res.writeHead(529);
      res.end();
    };
    expect((await fetch(base)).statusText).toBe("HTTP 529");
  });

  it("fails like fetch on a status Response refuses (600 and above), letting the connection go", async () => {
    const closed = new EventEmitter();
    let gone = false;
    answer = (req, res) => {
      res.writeHead(600);
      res.write("partial");
      req.socket.once("close", () => {
        gone = true;
        closed.emit("close");
      });
    };
    const failure = await fetch(base).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe("fetch failed");
    await whenEmitted(() => gone, closed, "close", 2_000, () => "the server to see the request end");
  });

  it("refuses a malformed header value as such, not as a connection failure the SDK would retry", async () => {
    answer = (_req, res) => res.end();
    const failure = await fetch(base, { headers: { "x-bad": "line\nbreak" } }).catch((err: unknown) => err);
    expect((failure as Error).message).not.toBe("fetch failed");
    expect((failure as { code?: string }).code).toBe("UND_ERR_INVALID_ARG");
    expect(seen).toEqual([]);
  });

  it("ends the request when the reader cancels the body, before reading or with a read pending", async () => {
    const closed = new EventEmitter();
    let closes = 0;
    answer = (req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n"); // then nothing: only a cancel ends it
      req.socket.once("close", () => {
        closes += 1;
        closed.emit("close");
      });
    };
    const untouched = await fetch(base);
    await untouched.body!.cancel();
    await whenEmitted(() => closes === 1, closed, "close", 2_000, () => "the server to see the first request end");

    const reading = await fetch(base);
    const reader = reading.body!.pipeThrough(new TextDecoderStream()).getReader();
    expect((await reader.read()).value).toBe("data: first\n\n");
    const pending = reader.read();
    await reader.cancel();
    await pending;
    await whenEmitted(() => closes === 2, closed, "close", 2_000, () => "the server to see the second request end");
  });

  it("fails like fetch when nothing listens: a TypeError 'fetch failed' with the system error as cause", async () => {
    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, "close");

    const failure = await fetch(`http://127.0.0.1:${port}/v1`).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe("fetch failed");
    expect(((failure as TypeError).cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");

    // What the AI SDK makes of it: a retryable "Cannot connect" error naming the cause.
    const model = createOpenAICompatible({ name: "t", baseURL: `http://127.0.0.1:${port}/v1`, fetch }).chatModel("m");
    const sdkFailure = await generateText({ model, prompt: "hi", maxRetries: 0 }).catch((err: unknown) => err);
    expect(APICallError.isInstance(sdkFailure) && sdkFailure.isRetryable).toBe(true);
    expect((sdkFailure as Error).message).toContain("Cannot connect to API");
  });

  it("rejects with the signal's reason when aborted before the answer", async () => {
    answer = () => {}; // never answers
    const failure = await fetch(base, { signal: AbortSignal.timeout(50) }).catch((err: unknown) => err);
    expect((failure as Error).name).toBe("TimeoutError");
  });

  it("times out after timeoutMs with a TimeoutError, while waiting for the answer or for the rest of the body", async () => {
    const impatient = requestFetch({ timeoutMs: 100 });
    answer = () => {}; // never answers
    const waiting = await impatient(base).catch((err: unknown) => err);
    expect((waiting as Error).name).toBe("TimeoutError");

    answer = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n"); // and nothing more
    };
    const response = await impatient(base);
    const reader = response.body!.getReader();
    await reader.read();
    const stalled = await reader.read().catch((err: unknown) => err);
    expect((stalled as Error).name).toBe("TimeoutError");
  });

  it("fails the body's read with the signal's reason when aborted while the body streams", async () => {
    answer = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n");
    };
    const controller = new AbortController();
    const response = await fetch(base, { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort(new DOMException("stop", "AbortError"));

    const failure = await reader.read().catch((err: unknown) => err);
    expect((failure as Error).name).toBe("AbortError");
  });

  it("refuses a body kind no model API sends, saying which", async () => {
    answer = (_req, res) => res.end();
    await expect(fetch(base, { method: "POST", body: new URLSearchParams("a=1") })).rejects.toThrow("request body of an unsupported kind: [object URLSearchParams]");
    await expect(fetch(base, { method: "POST", body: new Blob(["a"]).stream() })).rejects.toThrow("request body of an unsupported kind: [object ReadableStream]");
    expect(seen).toEqual([]);
  });
});
