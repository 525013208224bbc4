import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { turnNotesOf } from "../fakes/openai-server.js";
import { openChat, startTestGateway, userTextsOf, type TestGateway } from "./harness.js";

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const toolNamesOf = (request: { body: { tools?: Array<{ function?: { name: string } }> } }) =>
  (request.body.tools ?? []).map((tool) => tool.function?.name);

/** The get_tool_info -> write_file -> answer script of a model saving a note. */
function scriptNoteTaking(gw: TestGateway, answer: string): void {
  gw.fake.enqueue(
    { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "Write-File" } }] },
    { toolCalls: [{ name: "write_file", arguments: { path: "notes/todo.txt", content: "buy milk" } }] },
    { text: answer },
  );
}

async function workspaceFile(gw: TestGateway, relative: string): Promise<string> {
  const root = join(gw.config.dataDir, "workspaces");
  const [dir] = await readdir(root);
  return readFile(join(root, dir!, relative), "utf8");
}

describe("gateway end to end", () => {
  it("answers over the API through get_tool_info and write_file, and keeps the history across a restart", async () => {
    t = await startTestGateway();
    scriptNoteTaking(t, "Saved it to notes/todo.txt.");

    const first = await t.post({ chatId: "c1", userId: "alice", text: "Please save a note: buy milk" });
    expect(first).toEqual({ status: 200, body: { replies: [{ text: "Saved it to notes/todo.txt.", attachments: [] }], outcome: "answered" } });

    const [r1, r2, r3] = t.fake.requests;
    expect(t.fake.requests).toHaveLength(3);
    // Every tool is sent from the start; get_tool_info still gives the full definition on request.
    expect(toolNamesOf(r1!)).toEqual(expect.arrayContaining(["get_tool_info", "write_file"]));
    expect(r2!.body.tools).toEqual(r1!.body.tools);
    // The model received the tool's full definition, then the write's result.
    expect(JSON.stringify(r2!.body.messages)).toContain("Writes UTF-8 text to a file");
    const writeResult = r3!.body.messages?.filter((m) => m.role === "tool").at(-1);
    expect(JSON.parse(String(writeResult?.content))).toMatchObject({ path: "notes/todo.txt" });
    expect(userTextsOf(r1!).at(-1)).toContain("Please save a note: buy milk");
    expect(await workspaceFile(t, "notes/todo.txt")).toBe("buy milk");

    await t.restart();
    t.fake.enqueue({ text: "You asked me to save a note." });
    const second = await t.post({ chatId: "c1", userId: "alice", text: "What did I ask you?" });
    expect(second.body.replies?.[0]?.text).toBe("You asked me to save a note.");
    const history = JSON.stringify(t.fake.requests[3]!.body.messages);
    expect(history).toContain("Please save a note: buy milk");
    expect(history).toContain("Saved it to notes/todo.txt.");
  });

  it("makes a session's workspace only when a tool first needs it, private, below a passable root", async () => {
    t = await startTestGateway();
    const root = join(t.config.dataDir, "workspaces");
    t.fake.enqueue({ text: "Hello!" });
    await t.post({ chatId: "c1", userId: "alice", text: "hi" });
    // Made at start, passable (a sandbox user under root reaches its workspace below it), and still empty.
    expect((await stat(root)).mode & 0o777).toBe(0o711);
    expect(await readdir(root)).toEqual([]);

    scriptNoteTaking(t, "Saved.");
    await t.post({ chatId: "c1", userId: "alice", text: "Please save a note: buy milk" });
    const [dir, ...others] = await readdir(root);
    expect(others).toEqual([]);
    expect((await stat(join(root, dir!))).mode & 0o777).toBe(0o700);
    expect(await workspaceFile(t, "notes/todo.txt")).toBe("buy milk");
  });

  it("answers over the WebSocket, and the page's history survives a restart", async () => {
    t = await startTestGateway();
    scriptNoteTaking(t, "Done, the note is saved.");
    const chat = await openChat(t.url, "ws-chat");
    chat.send({ type: "message", text: "save buy milk" });
    const reply = await chat.waitFor((f) => f.type === "message" && f.role === "bot");
    expect(reply.text).toBe("Done, the note is saved.");
    const [infoResult, writeResult] = t.fake.lastToolResults();
    expect(infoResult?.content).toMatch(/^write_file\(path: string, content: string/);
    expect(writeResult?.content).toMatchObject({ path: "notes/todo.txt" });
    chat.close();

    await t.restart();
    const again = await openChat(t.url, "ws-chat");
    const history = again.frames.find((f) => f.type === "history") as { messages: Array<{ role: string; text: string }> };
    expect(history.messages.map((m) => [m.role, m.text])).toEqual([
      ["user", "save buy milk"],
      ["bot", "Done, the note is saved."],
    ]);
    again.close();
  });

  it("runs one turn for a message delivered twice", async () => {
    t = await startTestGateway();
    t.fake.respondWith(() => ({ text: "once" }));
    const body = { chatId: "dup", userId: "alice", text: "hi", messageId: "m-1" };
    expect((await t.post(body)).body.outcome).toBe("answered");
    await t.restart(); // the dedup record is persisted, so a redelivery after a restart is caught too
    expect((await t.post(body)).body).toEqual({ replies: [], outcome: "duplicate" });
    expect(t.fake.requests).toHaveLength(1);
  });

  it("defers a turn cut short by shutdown and handles the message again after the restart", async () => {
    t = await startTestGateway({ sessions: { shutdownGraceMs: 100 } });
    t.fake.enqueue({ hang: true });
    const body = { chatId: "cut", userId: "alice", text: "a long question", messageId: "q-1" };
    const first = t.post(body);
    await t.fake.waitForRequests(1);
    await t.restart(); // the grace period runs out while the model still thinks
    expect((await first).body).toEqual({ replies: [], outcome: "deferred" });

    t.fake.enqueue({ text: "the answer" });
    const redelivered = await t.post(body);
    expect(redelivered.body).toEqual({ replies: [{ text: "the answer", attachments: [] }], outcome: "answered" });
    expect((await t.post(body)).body.outcome).toBe("duplicate");
  });

  it("answers 20 messages of one session in order, one turn at a time", async () => {
    t = await startTestGateway();
    t.fake.respondWith((request) => ({ text: `echo: ${userTextsOf(request).at(-1)?.match(/msg (\d+)/)?.[1]}` }));
    const chat = await openChat(t.url, "ordered");
    for (let i = 0; i < 20; i += 1) chat.send({ type: "message", text: `msg ${i}` });
    await chat.waitFor((f) => f.type === "message" && f.role === "bot" && f.text === "echo: 19");
    const replies = chat.frames.filter((f) => f.type === "message" && f.role === "bot").map((f) => f.text);
    expect(replies).toEqual(Array.from({ length: 20 }, (_, i) => `echo: ${i}`));
    // Each turn saw the previous one's answer: they ran one after another, not interleaved.
    expect(JSON.stringify(t.fake.requests[19]!.body.messages)).toContain("echo: 18");
    chat.close();
  });

  it("runs 20 sessions in parallel", async () => {
    t = await startTestGateway({ sessions: { maxConcurrent: 20 } });
    t.fake.respondWith(() => ({ hang: true }));
    const pending = Array.from({ length: 20 }, (_, i) => t!.post({ chatId: `p${i}`, userId: "u", text: "hello" }));
    // All 20 model calls are open at once: none of them has been answered.
    await t.fake.waitForRequests(20);
    expect(t.fake.requests).toHaveLength(20);
    await t.fake.close(); // ends the hanging calls; every turn ends with an apology
    const outcomes = await Promise.all(pending);
    expect(outcomes.every((r) => r.body.outcome === "failed" && /error id/.test(r.body.replies?.[0]?.text ?? ""))).toBe(true);
  });

  it("/stop cancels the running turn and says so; the session goes on", async () => {
    t = await startTestGateway();
    t.fake.enqueue({ hang: true });
    const chat = await openChat(t.url, "stoppable");
    chat.send({ type: "message", text: "think for a long time" });
    await t.fake.waitForRequests(1);
    chat.send({ type: "message", text: "/stop" });
    await chat.waitFor((f) => f.role === "bot" && f.text === "Stopped the running turn.");
    t.fake.enqueue({ text: "back again" });
    chat.send({ type: "message", text: "hello?" });
    await chat.waitFor((f) => f.role === "bot" && f.text === "back again");
    const botTexts = chat.frames.filter((f) => f.role === "bot").map((f) => f.text);
    expect(botTexts).toEqual(["Stopped the running turn.", "back again"]);
    chat.close();
  });

  it("apologizes with an error id when the model endpoint is down, logs the cause, and recovers", async () => {
    t = await startTestGateway();
    t.fake.enqueue({ status: 503, body: { error: { message: "upstream overloaded" } } });
    const failed = await t.post({ chatId: "down", userId: "u", text: "hello" });
    expect(failed.body.outcome).toBe("failed");
    const errorId = failed.body.replies?.[0]?.text.match(/error id ([\w-]+)/)?.[1];
    expect(errorId).toBeDefined();
    const logged = t.logs.find((l) => l.errorId === errorId && l.level >= 50);
    expect(JSON.stringify(logged)).toContain("upstream overloaded");
    expect(JSON.stringify(t.logs)).not.toContain("sk-e2e-secret");
    const url = t.url;
    const llmNow = async () =>
      ((await (await fetch(`${url}/readyz`)).json()) as { components: Record<string, { ok: boolean; detail?: string; parts?: Record<string, string> }> }).components.llm;
    // /readyz tells the LLM as the last call found it, with the error id the user was given, and each model's state.
    expect(await llmNow()).toMatchObject({
      ok: false,
      detail: expect.stringContaining(`error id ${errorId}`),
      parts: { default: expect.stringMatching(/^default: fake-model \(openai-compatible\): cooling down until .* \(HTTP 503\)$/) },
    });

    t.fake.enqueue({ text: "working now" });
    expect((await t.post({ chatId: "down", userId: "u", text: "again" })).body.replies?.[0]?.text).toBe("working now");
    expect(await llmNow()).toMatchObject({ ok: true, detail: expect.stringContaining("last call ok") });
  });

  it("starts without a model: free text gets the set-up hint, commands work, readyz says why", async () => {
    t = await startTestGateway({}, { withLlm: false });
    const hint = await t.post({ chatId: "nollm", userId: "u", text: "hello" });
    expect(hint.body.replies?.[0]?.text).toMatch(/LLM_BASE_URL/);
    expect(hint.body.replies?.[0]?.text).toMatch(/LLM_MODEL/);
    const help = await t.post({ chatId: "nollm", userId: "u", text: "/help" });
    expect(help.body.replies?.[0]?.text).toContain("/stop");
    const status = await t.post({ chatId: "nollm", userId: "u", text: "/status" });
    expect(status.body.replies?.[0]?.text).toContain("Model: not configured");

    const ready = await fetch(`${t.url}/readyz`);
    const report = (await ready.json()) as { ready: boolean; components: Record<string, { ok: boolean; detail?: string }> };
    expect(ready.status).toBe(200);
    expect(report.components.store?.ok).toBe(true);
    expect(report.components["channel:web"]?.ok).toBe(true);
    expect(report.components.llm).toMatchObject({ ok: false });
    expect(t.fake.requests).toHaveLength(0);
  });

  it("tells the model the sender's own time zone once they set it with /timezone", async () => {
    t = await startTestGateway();
    t.fake.respondWith(() => ({ text: "ok" }));
    await t.post({ chatId: "tz", userId: "u", text: "hello" });
    expect(turnNotesOf(t.fake.requests[0]!)).toMatch(/Local time: .*\(UTC,/);
    await t.post({ chatId: "tz", userId: "u", text: "/timezone Asia/Tokyo" });
    await t.post({ chatId: "tz", userId: "u", text: "what day is it?" });
    expect(turnNotesOf(t.fake.requests[1]!)).toMatch(/Local time: .*\(Asia\/Tokyo, GMT\+09:00\)/);
    // The earlier message keeps the time it was written at, so the history stays the prefix it was.
    expect(JSON.stringify(t.fake.requests[1]!.body.messages)).toMatch(/Local time: .*\(UTC,/);
  });

  it("/new forgets the history", async () => {
    t = await startTestGateway();
    t.fake.respondWith(() => ({ text: "ok" }));
    await t.post({ chatId: "fresh", userId: "u", text: "remember the word kumquat" });
    expect((await t.post({ chatId: "fresh", userId: "u", text: "/new" })).body.replies?.[0]?.text).toMatch(/new conversation/);
    await t.post({ chatId: "fresh", userId: "u", text: "what was the word?" });
    expect(JSON.stringify(t.fake.requests.at(-1)!.body.messages)).not.toContain("kumquat");
  });
});
