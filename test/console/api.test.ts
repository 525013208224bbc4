/** The console's JSON API over HTTP: the token, each route's answer, and each class of bad input. */
import { afterEach, describe, expect, it } from "vitest";
import { isLoopback } from "../../src/console/auth.js";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { skillMd } from "../skills/helpers.js";
import { zipArchive } from "../skills/zip.js";

const TOKEN = "console-api-token";
let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function call(gw: TestGateway, method: string, path: string, body?: object | FormData): Promise<{ status: number; json: Record<string, unknown> }> {
  const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` };
  if (body !== undefined && !(body instanceof FormData)) headers["content-type"] = "application/json";
  const res = await fetch(`${gw.url}/api/v1/console${path}`, {
    method,
    headers,
    body: body instanceof FormData ? body : body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe("console API", () => {
  it("wants the token when one is configured, and serves the page without it", async () => {
    t = await startTestGateway({ http: { token: TOKEN } });
    expect((await fetch(`${t.url}/api/v1/console/channels`)).status).toBe(401);
    const wrong = await fetch(`${t.url}/api/v1/console/channels`, { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    const page = await fetch(`${t.url}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(await page.text()).toContain('<div id="app">');
    expect((await fetch(`${t.url}/console/%2e%2e/%2e%2e/package.json`)).status).toBe(404);
  });

  it("lets the local user in when no token is configured", async () => {
    t = await startTestGateway();
    const res = await fetch(`${t.url}/api/v1/console/channels`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { channels: unknown; replicas: { id: string; live: Array<{ id: string }> }; models: unknown };
    expect(body.channels).toEqual([{ name: "web", connected: true }]);
    expect(body.models).toEqual([{ name: "default", state: "ready", detail: "default: fake-model (openai-compatible): ready" }]);
    expect(body.replicas.live.map((r) => r.id)).toEqual([body.replicas.id]);
    const proxied = await fetch(`${t.url}/api/v1/console/channels`, { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(proxied.status).toBe(403);
  });

  it("tells loopback peers from others", () => {
    expect(["127.0.0.1", "::1", "::ffff:127.0.0.1"].every(isLoopback)).toBe(true);
    expect(["10.0.0.2", "::ffff:192.168.1.4", "fe80::1", undefined].some(isLoopback)).toBe(false);
  });

  it("shows the configuration with secrets redacted, the log tail state and no MCP servers", async () => {
    t = await startTestGateway({ http: { token: TOKEN } });
    const config = await call(t, "GET", "/config");
    expect(JSON.stringify(config.json)).not.toContain(TOKEN);
    expect(JSON.stringify(config.json)).not.toContain("sk-e2e-secret");
    expect(JSON.stringify(config.json)).toContain("[REDACTED]");
    expect((await call(t, "GET", "/mcp")).json).toEqual({ servers: [] });
    expect((await call(t, "GET", "/logs?after=-1")).status).toBe(400);
    expect((await call(t, "GET", "/logs")).json).toMatchObject({ available: false, lines: [] });
  });

  it("answers 404 for unknown sessions and tasks, 409 for a task the scheduler refuses, and 400/404 for bad pairing requests, each with its code and values", async () => {
    t = await startTestGateway({ http: { token: TOKEN } });
    const transcript = await call(t, "GET", "/sessions/web%3Anobody/transcript");
    expect(transcript).toEqual({ status: 404, json: { error: "session_not_found", message: "No session web:nobody", session: "web:nobody" } });
    expect((await call(t, "POST", "/sessions/web%3Anobody/reset")).status).toBe(404);
    const task = await call(t, "POST", "/tasks/nope/cancel");
    expect(task).toMatchObject({ status: 404, json: { error: "task_not_found", id: "nope" } });
    expect((await call(t, "POST", "/tasks/nope/pause")).status).toBe(404);
    const set = await t.post({ chatId: "c1", userId: "alice", text: "/remind in 2h water" });
    const id = /\/cancel (\w+)/.exec(set.body.replies?.[0]?.text ?? "")![1]!;
    expect((await call(t, "POST", `/tasks/${id}/cancel`)).status).toBe(200);
    const refused = await call(t, "POST", `/tasks/${id}/run`);
    expect(refused).toMatchObject({ status: 409, json: { error: "task_refused", detail: expect.stringMatching(/already ended \(cancelled\)/) } });
    const bad = await call(t, "POST", "/access/pairing/approve", { channel: "web" });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ error: "bad_request", problems: ["code: Invalid input: expected string, received undefined"] });
    expect(await call(t, "POST", "/access/pairing/approve", { channel: "web", code: "ABCD2345" })).toMatchObject({ status: 404, json: { error: "unknown" } });
    expect(await call(t, "POST", "/access/pairing/deny", { channel: "web", userId: "nobody" })).toMatchObject({ status: 404, json: { error: "pairing_not_found" } });
    expect(await call(t, "GET", "/nothing-here")).toMatchObject({ status: 404, json: { error: "not_found", method: "GET", path: "/api/v1/console/nothing-here" } });
  });

  it("lists a session after a turn, with its transcript, and searches it", async () => {
    t = await startTestGateway({ http: { token: TOKEN } });
    t.fake.enqueue({ text: "Sure thing" });
    await t.post({ chatId: "s1", userId: "alice", text: "Book a table" });
    const list = (await call(t, "GET", "/sessions?q=book")).json["sessions"] as Array<{ key: string; preview: string }>;
    expect(list).toHaveLength(1);
    expect(list[0]!.preview).toBe("Book a table");
    expect((await call(t, "GET", "/sessions?q=zebra")).json["sessions"]).toEqual([]);
    const transcript = await call(t, "GET", `/sessions/${encodeURIComponent(list[0]!.key)}/transcript`);
    expect(transcript.json["messages"]).toEqual([
      { role: "user", text: expect.stringContaining("Book a table") },
      { role: "assistant", text: "Sure thing" },
    ]);
  });

  it("installs an uploaded skill archive and refuses what is not one", async () => {
    t = await startTestGateway({ http: { token: TOKEN } });
    const archive = zipArchive([{ name: "greeter/" }, { name: "greeter/SKILL.md", content: skillMd({ name: "greeter", description: "Greets people." }) }]);
    const form = new FormData();
    form.append("archive", new Blob([new Uint8Array(archive)]), "greeter.zip");
    const installed = await call(t, "POST", "/skills/install", form);
    expect(installed.status).toBe(200);
    expect(installed.json["installed"]).toMatchObject({ name: "greeter" });
    expect((installed.json["skills"] as Array<{ name: string }>).map((s) => s.name)).toContain("greeter");

    const text = new FormData();
    text.append("archive", new Blob(["hello"]), "notes.txt");
    expect((await call(t, "POST", "/skills/install", text)).json).toEqual({
      error: "bad_archive",
      message: "notes.txt is not a .zip, .tar.gz or .tgz archive",
      name: "notes.txt",
    });
    const broken = new FormData();
    broken.append("archive", new Blob(["not a zip"]), "broken.zip");
    const failed = await call(t, "POST", "/skills/install", broken);
    expect(failed).toMatchObject({ status: 422, json: { error: "install_failed" } });
    expect(failed.json["detail"]).toBe(failed.json["message"]);
    expect(await call(t, "POST", "/skills/install", {})).toMatchObject({ status: 400, json: { error: "archive_missing" } });
  });
});
