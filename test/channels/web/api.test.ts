import { describe, expect, it } from "vitest";
import { targetOf, type InboundMessage } from "../../../src/core/types.js";
import type { WebChannel } from "../../../src/channels/web/index.js";
import { gate, postMessage, webPerTest } from "./harness.js";
import { eventually } from "../../helpers/wait.js";

const web = webPerTest();

/** A handler that records each message and echoes it. */
const recording = (seen: InboundMessage[]) => ({
  handler: (channel: WebChannel) => async (m: InboundMessage) => {
    seen.push(m);
    await channel.sendText(targetOf(m), `echo: ${m.text}`, { replyTo: m.platformMessageId });
    return "answered" as const;
  },
});

describe("POST /api/v1/messages", () => {
  it("without a token, ignores the userId the client claims: every API and WebChat user is web:local", async () => {
    const seen: InboundMessage[] = [];
    const h = await web(recording(seen));
    await postMessage(h.url, { chatId: "c1", userId: "boss", text: "hi" });
    expect(seen[0]?.sender.id).toBe("local");
  });

  it("hands the message to the router and answers with its replies and outcome", async () => {
    const seen: InboundMessage[] = [];
    const h = await web({ token: "api-token", ...recording(seen) });
    const res = await postMessage(h.url, { chatId: "c1", userId: "u1", userName: " Ada ", text: "hi", messageId: "m1" }, "api-token");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ replies: [{ text: "echo: hi", attachments: [] }], outcome: "answered" });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      id: "web:c1:m1",
      platformMessageId: "m1",
      channel: "web",
      chat: { id: "c1", type: "direct" },
      sender: { id: "u1", name: "Ada" },
      text: "hi",
      attachments: [],
      mentionsBot: true,
    });
  });

  it("makes up a message id when the client gives none", async () => {
    const ids: string[] = [];
    const h = await web({
      handler: () => async (m) => {
        ids.push(m.id);
        return "ignored";
      },
    });
    const res = await postMessage(h.url, { chatId: "c1", userId: "u1", text: "hi" });
    expect(await res.json()).toEqual({ replies: [], outcome: "ignored" });
    expect(ids[0]).toMatch(/^web:c1:[0-9a-f-]{36}$/);
  });

  it("answers malformed JSON with 400 and the reason", async () => {
    const h = await web();
    const res = await postMessage(h.url, '{"chatId": "c1",');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).toBe("bad_json");
    expect(body.message).toMatch(/^Malformed JSON: .+/);
  });

  it("lists every field problem with 400", async () => {
    const h = await web();
    const res = await postMessage(h.url, { chatId: "has:colon", text: "   " });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; problems: string[] };
    expect(body.error).toBe("bad_request");
    expect(body.problems).toEqual([
      expect.stringMatching(/^chatId: /),
      expect.stringMatching(/^userId: /),
      expect.stringMatching(/^text: must not be empty/),
    ]);
  });

  it("refuses a body that is not an object", async () => {
    const h = await web();
    const res = await postMessage(h.url, "[1,2]");
    expect(res.status).toBe(400);
    expect(((await res.json()) as { problems: string[] }).problems[0]).toMatch(/^\(body\): /);
  });

  it("answers 413 for text over the limit and for far too large bodies", async () => {
    const h = await web({ maxTextLength: 50 });
    const long = await postMessage(h.url, { chatId: "c1", userId: "u1", text: "x".repeat(51) });
    expect(long.status).toBe(413);
    expect(await long.json()).toMatchObject({ error: "text_too_long" });

    const huge = await postMessage(h.url, { chatId: "c1", userId: "u1", text: "x".repeat(100_000) });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ error: "too_large" });

    const ok = await postMessage(h.url, { chatId: "c1", userId: "u1", text: "x".repeat(50) });
    expect(ok.status).toBe(200);
  });

  it("keeps the replies of concurrent requests apart, across chats and within one chat", async () => {
    const arrived: InboundMessage[] = [];
    const allIn = gate();
    const replied = [gate(), gate(), gate(), gate()];
    const h = await web({
      handler: (channel) => async (m) => {
        const index = arrived.push(m) - 1;
        if (arrived.length === 4) allIn.open();
        await allIn.promise;
        // Reply in reverse order of arrival, so that a mix-up would show.
        if (index < 3) await replied[index + 1]!.promise;
        await channel.sendText(targetOf(m), `echo: ${m.text}`, { replyTo: m.platformMessageId });
        replied[index]!.open();
        return "answered";
      },
    });
    const send = (chatId: string, text: string): Promise<unknown> =>
      postMessage(h.url, { chatId, userId: "u1", text }).then((r) => r.json());
    const answers = await Promise.all([send("a", "a1"), send("b", "b1"), send("a", "a2"), send("b", "b2")]);
    expect(answers.map((a) => (a as { replies: { text: string }[] }).replies.map((r) => r.text))).toEqual([
      ["echo: a1"],
      ["echo: b1"],
      ["echo: a2"],
      ["echo: b2"],
    ]);
  });

  it("answers 409 while a message with the same id is still being handled", async () => {
    const release = gate();
    const h = await web({
      handler: () => async () => {
        await release.promise;
        return "answered";
      },
    });
    const first = postMessage(h.url, { chatId: "c1", userId: "u1", text: "hi", messageId: "same" });
    // The first request is waiting once its message is in the transcript.
    await eventually(async () => (await h.store.namespace<unknown[]>("web").get("c1"))?.length === 1, "the transcript entry of c1");
    const second = await postMessage(h.url, { chatId: "c1", userId: "u1", text: "hi", messageId: "same" });
    expect(second.status).toBe(409);
    release.open();
    expect((await first).status).toBe(200);
  });

  it("answers 504 with the replies so far when the turn takes too long", async () => {
    const release = gate();
    const h = await web({
      turnTimeoutMs: 100,
      handler: (channel) => async (m) => {
        await channel.sendText(targetOf(m), "working on it", { replyTo: m.platformMessageId });
        await release.promise;
        return "answered";
      },
    });
    const res = await postMessage(h.url, { chatId: "c1", userId: "u1", text: "slow" });
    release.open();
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ error: "timeout", replies: [{ text: "working on it", attachments: [] }] });
  });

  it("answers 500 with an error id when the handler throws, logged once", async () => {
    const h = await web({
      handler: () => async () => {
        throw new Error("router exploded");
      },
    });
    const res = await postMessage(h.url, { chatId: "c1", userId: "u1", text: "hi" });
    expect(res.status).toBe(500);
    const { errorId } = (await res.json()) as { errorId: string };
    expect(h.logs.filter((l) => l.includes(errorId))).toHaveLength(1);
  });

  it("answers 503 once the channel is stopped", async () => {
    const h = await web();
    await h.channel.stop();
    const res = await postMessage(h.url, { chatId: "c1", userId: "u1", text: "hi" });
    expect(res.status).toBe(503);
    expect(h.channel.status().connected).toBe(false);
  });
});

describe("auth", () => {
  const TOKEN = "web-token-456";

  it("requires the token on the API when one is configured", async () => {
    const h = await web({ token: TOKEN });
    const body = { chatId: "c1", userId: "u1", text: "hi" };
    expect((await postMessage(h.url, body)).status).toBe(401);
    expect((await postMessage(h.url, body, "nope")).status).toBe(401);
    const ok = await postMessage(h.url, body, TOKEN);
    expect(ok.status).toBe(200);
    expect((await fetch(`${h.url}/api/v1/info`)).status).toBe(401);
    expect(h.logs.join("\n")).not.toContain(TOKEN);
  });
});

describe("GET /", () => {
  it("serves the chat page with a script-locking CSP", async () => {
    const h = await web();
    const res = await fetch(`${h.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await res.text()).toContain('id="composer"');
    expect(res.headers.get("content-security-policy")).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
  });

  it("tells the page the bot name and the text limit", async () => {
    const h = await web({ maxTextLength: 123 });
    expect(await (await fetch(`${h.url}/api/v1/info`)).json()).toEqual({ botName: "Testbot", maxTextLength: 123 });
  });
});
