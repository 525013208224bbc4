/** Approvals where there are no buttons (WebChat): the typed forms, and an owner's answer from the console. */
import { afterEach, describe, expect, it } from "vitest";
import { openChat, startTestGateway, type ChatSocket, type TestGateway } from "../e2e/harness.js";
import { toolResultsOf } from "../fakes/openai-server.js";
import { WRITE_NOTE } from "./fixtures.js";

let t: TestGateway | undefined;
let chat: ChatSocket | undefined;
afterEach(async () => {
  chat?.close();
  await t?.close();
  t = chat = undefined;
});

const botSaid = (socket: ChatSocket, pattern: RegExp) => socket.waitFor((f) => f.type === "message" && f.role === "bot" && pattern.test(String(f.text)));

async function askToWrite(reply: string): Promise<{ t: TestGateway; chat: ChatSocket; id: string; prompt: string }> {
  t = await startTestGateway({ approvals: { mode: "always", tools: ["write_file"] } });
  chat = await openChat(t.url, "c1");
  t.fake.enqueue({ toolCalls: [WRITE_NOTE] }, { text: reply });
  chat.send({ type: "message", text: "write a note" });
  const prompt = String((await botSaid(chat, /^Approval needed/)).text);
  const id = /\(request (\w+)\)/.exec(prompt)![1]!;
  return { t, chat, id, prompt };
}

describe("approvals without buttons", () => {
  it("shows the typed forms, and a typed /approve runs the tool", async () => {
    const { t, chat, id, prompt } = await askToWrite("Written.");
    expect(prompt).toContain(`Approve once: /approve ${id}`);
    expect(prompt).toContain(`Deny: /deny ${id}`);
    chat.send({ type: "message", text: "/approve nosuchid" });
    await botSaid(chat, /^There is no approval request nosuchid\.$/);
    chat.send({ type: "message", text: `/approve ${id}` });
    await botSaid(chat, new RegExp(`^Approved: write_file \\(request ${id}\\)\\.$`));
    await botSaid(chat, /^Written\.$/);
    expect(toolResultsOf(t.fake.requests[1]!)[0]?.content).toMatchObject({ bytesWritten: 5 });
  });

  it("a typed /deny: the tool does not run", async () => {
    const { t, chat, id } = await askToWrite("Not written.");
    chat.send({ type: "message", text: `/deny ${id}` });
    await botSaid(chat, /^Not written\.$/);
    expect(toolResultsOf(t.fake.requests[1]!)[0]?.content).toMatchObject({ code: "denied" });
  });

  it("the console lists the pending request and an owner's Approve there runs it; the session log names who decided", async () => {
    const { t, chat, id } = await askToWrite("Written.");
    const listed = (await (await fetch(`${t.url}/api/v1/console/approvals`)).json()) as { pending: Array<{ id: string; shows: string }> };
    expect(listed.pending).toMatchObject([{ id, shows: expect.stringContaining("path: note.txt") }]);
    const approved = await fetch(`${t.url}/api/v1/console/approvals/${id}/approve`, { method: "POST" });
    expect(approved.status).toBe(200);
    await botSaid(chat, /^Written\.$/);
    const again = await fetch(`${t.url}/api/v1/console/approvals/${id}/deny`, { method: "POST" });
    expect(again.status).toBe(409);
    const after = (await (await fetch(`${t.url}/api/v1/console/approvals`)).json()) as { pending: unknown[]; decided: Array<{ id: string; status: string; decidedBy: string }> };
    expect(after.pending).toEqual([]);
    expect(after.decided[0]).toMatchObject({ id, status: "approved", decidedBy: "console" });

    t.fake.enqueue({ toolCalls: [{ name: "get_session_logs", arguments: { turns: 1 } }] }, { text: "Logged." });
    chat.send({ type: "message", text: "what did you run?" });
    await botSaid(chat, /^Logged\.$/);
    const logs = toolResultsOf(t.fake.requests.at(-1)!).at(-1)?.content;
    expect(JSON.stringify(logs)).toContain(`"approval":{"requestId":"${id}","decision":"approved","by":"console"}`);
  });
});
