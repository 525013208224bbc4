import { afterEach, describe, expect, it } from "vitest";
import { HttpServer } from "../../../src/infra/http/server.js";
import { createLogger } from "../../../src/infra/log.js";
import { TestSocket, refusedStatus } from "./ws-client.js";

const TOKEN = "s3cret-token-123";

interface Started {
  server: HttpServer;
  url: string;
  logs: string[];
}

const running: HttpServer[] = [];
let endStream = (): void => {};
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

async function start(opts: { token?: string | null; ready?: boolean | "throws" } = {}): Promise<Started> {
  const logs: string[] = [];
  const log = createLogger({ level: "debug", secrets: [], destination: { write: (line: string) => void logs.push(line) } });
  const server = new HttpServer({
    host: "127.0.0.1",
    port: 0,
    token: opts.token ?? null,
    log,
  });
  server.addReadinessCheck("store", () => {
    if (opts.ready === "throws") throw new Error("store unreachable");
    return { ok: opts.ready ?? true, detail: "sqlite" };
  });
  server.app.get("/protected", server.auth, (c) => c.json({ ok: true }));
  server.app.get("/boom", () => {
    throw new Error("kaput");
  });
  // The client has all 5 bytes at once; the server ends the response only when the test says so.
  server.app.get("/stream", (c) => {
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        controller.enqueue(new TextEncoder().encode("hello"));
        endStream = () => controller.close();
      },
    });
    return c.body(body, 200, { "Content-Length": "5" });
  });
  server.onUpgrade("/echo", (ws) => ws.on("message", (data) => ws.send(String(data))));
  running.push(server);
  const { url } = await server.start();
  return { server, url, logs };
}

describe("HttpServer", () => {
  it("answers /healthz without auth", async () => {
    const { url } = await start({ token: TOKEN });
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("answers /readyz with 200 when ready and 503 when not", async () => {
    const ready = await start({ ready: true, token: TOKEN });
    const ok = await fetch(`${ready.url}/readyz`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ready: true, components: { store: { ok: true, detail: "sqlite" } } });

    const notReady = await start({ ready: false });
    const res = await fetch(`${notReady.url}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ ready: false, components: { store: { ok: false } } });
  });

  it("answers 503 when the readiness check itself throws", async () => {
    const { url } = await start({ ready: "throws" });
    const res = await fetch(`${url}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ ready: false });
  });

  it("answers unknown routes with 404 JSON", async () => {
    const { url } = await start();
    const res = await fetch(`${url}/nope?x=1`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: "not_found" });
  });

  it("turns a throwing route into 500 JSON with an error id, logged once", async () => {
    const { url, logs } = await start();
    const res = await fetch(`${url}/boom`);
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: string; errorId: string; message: string };
    expect(body.error).toBe("internal_error");
    expect(body.message).not.toContain("kaput");
    const failures = logs.filter((l) => l.includes('"request failed"'));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain(body.errorId);
    expect(failures[0]).toContain("kaput");
  });

  it("enforces the token on protected routes, and never logs it", async () => {
    const { url, logs } = await start({ token: TOKEN });
    expect((await fetch(`${url}/protected`)).status).toBe(401);
    const wrong = await fetch(`${url}/protected`, { headers: { authorization: "Bearer wrong" } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: "unauthorized" });
    const right = await fetch(`${url}/protected`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(right.status).toBe(200);
    expect(logs.join("\n")).not.toContain(TOKEN);
  });

  it("lets every request through when no token is configured", async () => {
    const { url } = await start({ token: null });
    expect((await fetch(`${url}/protected`)).status).toBe(200);
  });

  it("refuses WebSocket upgrades without the token and accepts the subprotocol or a header", async () => {
    const { url, logs } = await start({ token: TOKEN });
    expect(await refusedStatus(url, { path: "/echo" })).toBe(401);
    expect(await refusedStatus(url, { path: "/echo", protocols: ["bearer.wrong"] })).toBe(401);

    const browser = await TestSocket.open(url, { path: "/echo", protocols: [`bearer.${TOKEN}`] });
    expect(browser.ws.protocol).toBe(`bearer.${TOKEN}`);
    browser.send({ type: "ping" });
    expect(await browser.next("ping")).toEqual({ type: "ping" });
    await browser.close();

    const cli = await TestSocket.open(url, { path: "/echo", headers: { authorization: `Bearer ${TOKEN}` } });
    cli.send({ type: "pong" });
    expect(await cli.next("pong")).toEqual({ type: "pong" });
    await cli.close();
    expect(logs.join("\n")).not.toContain(TOKEN);
  });

  it("refuses upgrades to unknown paths with 404", async () => {
    const { url } = await start();
    expect(await refusedStatus(url, { path: "/nowhere" })).toBe(404);
  });

  it("closes open WebSockets with 1001 on stop", async () => {
    const { server, url } = await start();
    const socket = await TestSocket.open(url, { path: "/echo" });
    await server.stop();
    expect((await socket.closed).code).toBe(1001);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it("does not wait on stop for keep-alive connections that went idle", async () => {
    const { server, url } = await start();
    const res = await fetch(`${url}/stream`);
    expect(await res.text()).toBe("hello");
    const started = Date.now();
    const stopped = server.stop();
    endStream();
    await stopped;
    // The client would keep the connection for seconds; the server must not wait for that.
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it("reports a clear error when the port is taken", async () => {
    const first = await start();
    const port = Number(new URL(first.url).port);
    const log = createLogger({ level: "silent", secrets: [] });
    const second = new HttpServer({ host: "127.0.0.1", port, token: null, log });
    await expect(second.start()).rejects.toThrow(`Cannot listen on 127.0.0.1:${port}`);
  });
});
