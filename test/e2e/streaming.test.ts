/** WebChat replies as they are written: deltas over the WebSocket, the final reply as before. */
import { afterEach, describe, expect, it } from "vitest";
import { longMarkdown } from "../helpers/long-markdown.js";
import { openChat, startTestGateway, type ChatSocket, type TestGateway } from "./harness.js";

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

type Frame = Record<string, unknown>;

/** The draft's text as a tab rebuilds it from the frames. */
function draftText(frames: Frame[], draftId: unknown): string {
  let text = "";
  for (const f of frames) {
    if (f.type !== "draft" || f.draftId !== draftId) continue;
    text = typeof f.text === "string" ? f.text : text + String(f.delta);
  }
  return text;
}

const botReply = (chat: ChatSocket) => chat.waitFor((f) => f.type === "message" && f.role === "bot");

describe("WebChat streaming", () => {
  it("sends the reply in deltas, ends the draft, then the final message; the API still gets the final reply", async () => {
    t = await startTestGateway();
    const answer = "Here is a **long** answer.\n\n" + "Line of text that keeps going.\n".repeat(30);
    t.fake.enqueue({ text: answer, streaming: { pieceSize: 9 } });
    const chat = await openChat(t.url, "stream-chat");

    chat.send({ type: "message", text: "tell me a lot" });
    const reply = await botReply(chat);

    expect(reply.text).toBe(answer.trim());
    const drafts = chat.frames.filter((f) => f.type === "draft");
    expect(drafts.length).toBeGreaterThan(10);
    expect(drafts.filter((f) => "delta" in f).length).toBeGreaterThan(10);
    const { draftId } = drafts[0]!;
    expect(draftText(chat.frames, draftId)).toBe(answer);
    const end = chat.frames.findIndex((f) => f.type === "draft_end" && f.draftId === draftId);
    expect(end).toBeGreaterThan(chat.frames.lastIndexOf(drafts.at(-1)!));
    expect(end).toBeLessThan(chat.frames.indexOf(reply));
    chat.close();

    t.fake.enqueue({ text: answer, streaming: { pieceSize: 9 } });
    const api = await t.post({ chatId: "api-chat", userId: "bob", text: "again" });
    expect(api.body).toEqual({ replies: [{ text: answer.trim(), attachments: [] }], outcome: "answered" });
  });

  it("streams a 12,000-character Markdown answer whose final message equals the non-streamed one", async () => {
    t = await startTestGateway();
    const answer = longMarkdown();
    t.fake.enqueue({ text: answer, streaming: { pieceSize: 60 } });
    const chat = await openChat(t.url, "long-chat");
    chat.send({ type: "message", text: "write a lot" });
    const streamed = await botReply(chat);
    const { draftId } = chat.frames.find((f) => f.type === "draft")!;
    expect(draftText(chat.frames, draftId)).toBe(answer);
    chat.close();

    t.fake.enqueue({ text: answer });
    const plain = await t.post({ chatId: "plain-chat", userId: "bob", text: "write a lot" });
    expect(plain.body).toEqual({ replies: [{ text: streamed.text, attachments: [] }], outcome: "answered" });
  });

  it("shows a status line while a tool runs", async () => {
    t = await startTestGateway();
    t.fake.enqueue({ toolCalls: [{ name: "list_directory", arguments: { path: "." } }] }, { text: "Nothing in there." });
    const chat = await openChat(t.url, "tool-chat");

    chat.send({ type: "message", text: "what is in my folder?" });
    await botReply(chat);

    const texts = chat.frames.filter((f) => f.type === "draft").map((f) => f.text ?? f.delta);
    expect(texts).toContain("_Running list_directory..._");
  });

  it("replaces the draft with the apology when the model fails midway", async () => {
    t = await startTestGateway();
    t.fake.enqueue({ text: "A half answer that never ends ".repeat(20), streaming: { pieceSize: 10, failAfterChars: 150 } });
    const chat = await openChat(t.url, "fail-chat");

    chat.send({ type: "message", text: "try" });
    const reply = await botReply(chat);

    expect(reply.text).toMatch(/^Sorry, I could not get an answer from the language model/);
    const draft = chat.frames.find((f) => f.type === "draft")!;
    expect(chat.frames.some((f) => f.type === "draft_end" && f.draftId === draft.draftId)).toBe(true);
    expect(chat.frames.filter((f) => f.type === "message" && f.role === "bot")).toHaveLength(1);
  });

  it("ends the draft without a reply when the turn is stopped", async () => {
    t = await startTestGateway();
    t.fake.enqueue({ text: "slow words ".repeat(200), streaming: { pieceSize: 5, delayMs: 20 } });
    const chat = await openChat(t.url, "stop-chat");

    chat.send({ type: "message", text: "write slowly" });
    const draft = await chat.waitFor((f) => f.type === "draft");
    chat.send({ type: "message", text: "/stop" });

    await chat.waitFor((f) => f.type === "draft_end" && f.draftId === draft.draftId);
    const stopped = await botReply(chat);
    expect(stopped.text).toBe("Stopped the running turn.");
    expect(chat.frames.filter((f) => f.type === "message" && f.role === "bot")).toHaveLength(1);
  });

  it("sends no drafts when streaming is off", async () => {
    t = await startTestGateway({ channels: { web: { streaming: "off" } } });
    t.fake.enqueue({ text: "Whole at once.", streaming: { pieceSize: 2 } });
    const chat = await openChat(t.url, "off-chat");

    chat.send({ type: "message", text: "hi" });
    expect((await botReply(chat)).text).toBe("Whole at once.");
    expect(chat.frames.some((f) => f.type === "draft")).toBe(false);
  });
});
