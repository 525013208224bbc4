import { afterEach, describe, expect, it } from "vitest";
import { Transcript } from "../../../src/channels/web/transcript.js";
import { eventually } from "../../helpers/wait.js";
import { startWeb, webPerTest } from "./harness.js";
import { TestSocket, refusedStatus, type Frame } from "./ws-client.js";

const web = webPerTest();
const sockets: TestSocket[] = [];
afterEach(async () => {
  await Promise.all(sockets.splice(0).map((s) => s.close()));
});
async function hello(url: string, chatId: string): Promise<{ socket: TestSocket; history: Frame }> {
  const opened = await TestSocket.hello(url, chatId);
  sockets.push(opened.socket);
  return opened;
}
const texts = (history: Frame): string[] => (history.messages as { role: string; text: string }[]).map((m) => `${m.role}: ${m.text}`);

describe("WebChat WebSocket", () => {
  it("without a token, sends every tab's messages as the one local user, whatever userId hello claims", async () => {
    const senders: string[] = [];
    const h = await web({
      handler: () => async (m) => {
        senders.push(m.sender.id);
        return "ignored";
      },
    });
    const { socket } = await hello(h.url, "c1");
    socket.send({ type: "message", text: "who am I", messageId: "m1" });
    await socket.next("message", (f) => f.id === "m1");
    await eventually(() => senders.length > 0, "the message to reach the handler");
    expect(senders).toEqual(["local"]);
  });

  it("answers hello with the history, so a refresh shows the conversation", async () => {
    const h = await web();
    const { socket, history } = await hello(h.url, "c1");
    expect(history.messages).toEqual([]);

    socket.send({ type: "message", text: "hello bot", messageId: "m1" });
    expect(await socket.next("message")).toMatchObject({ id: "m1", role: "user", text: "hello bot", attachments: [] });
    const reply = await socket.next("message");
    expect(reply).toMatchObject({ role: "bot", text: "echo: hello bot", attachments: [] });
    expect(typeof reply.at).toBe("string");

    const refreshed = await hello(h.url, "c1");
    expect(texts(refreshed.history)).toEqual(["user: hello bot", "bot: echo: hello bot"]);
  });

  it("keeps the history across a restart on the same store", async () => {
    const first = await startWeb();
    const { socket } = await TestSocket.hello(first.url, "c1");
    socket.send({ type: "message", text: "remember me" });
    await socket.next("message", (f) => f.role === "bot");
    await socket.close();
    await first.stop();

    const second = await web({ dataDir: first.dataDir });
    const { history } = await hello(second.url, "c1");
    expect(texts(history)).toEqual(["user: remember me", "bot: echo: remember me"]);
  });

  it("sends the bot's messages to every tab of the chat and to no other chat", async () => {
    const h = await web();
    const tab1 = (await hello(h.url, "c1")).socket;
    const tab2 = (await hello(h.url, "c1")).socket;
    const other = (await hello(h.url, "c2")).socket;

    tab1.send({ type: "message", text: "from tab 1" });
    for (const tab of [tab1, tab2]) {
      expect((await tab.next("message")).text).toBe("from tab 1");
      expect((await tab.next("message")).text).toBe("echo: from tab 1");
    }
    await h.channel.sendText({ channel: "web", chatId: "c2" }, "only for c2");
    expect((await other.next("message")).text).toBe("only for c2");
    expect(other.buffered()).toEqual([]);
  });

  it("pushes typing to the chat's sockets", async () => {
    const h = await web();
    const { socket } = await hello(h.url, "c1");
    await h.channel.typing({ channel: "web", chatId: "c1" });
    expect(await socket.next("typing")).toEqual({ type: "typing" });
  });

  it("answers bad frames with an error frame and keeps the socket open", async () => {
    const h = await web({ maxTextLength: 20 });
    const socket = await TestSocket.open(h.url);
    sockets.push(socket);
    const errorOf = async (frame: unknown): Promise<Frame> => {
      socket.send(frame);
      return socket.next("error");
    };

    expect(await errorOf("{not json")).toMatchObject({ code: "bad_json", message: expect.stringMatching(/^Malformed JSON/) });
    expect(await errorOf({ type: "shout" })).toMatchObject({ code: "unknown_type" });
    expect(await errorOf({ type: "message", text: "too early", messageId: "e1" })).toMatchObject({
      code: "hello_required",
      messageId: "e1",
    });
    expect(await errorOf({ type: "hello", chatId: "c1" })).toMatchObject({ code: "bad_frame", message: expect.stringContaining("userId") });
    socket.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect(await socket.next("error")).toMatchObject({ code: "bad_frame" });

    socket.send({ type: "hello", chatId: "c1", userId: "u1" });
    await socket.next("history");
    expect(await errorOf({ type: "message", text: "x".repeat(21), messageId: "long" })).toMatchObject({
      code: "text_too_long",
      messageId: "long",
      length: 21,
      max: 20,
    });
    expect(await errorOf({ type: "message", text: "  " })).toMatchObject({ code: "bad_frame" });

    socket.send({ type: "message", text: "still here" });
    expect((await socket.next("message", (f) => f.role === "bot")).text).toBe("echo: still here");
  });

  it("tells the page when handling its message failed", async () => {
    const h = await web({
      handler: () => async () => {
        throw new Error("router exploded");
      },
    });
    const { socket } = await hello(h.url, "c1");
    socket.send({ type: "message", text: "hi", messageId: "m1" });
    const error = await socket.next("error");
    expect(error).toMatchObject({ code: "internal_error", messageId: "m1", errorId: expect.stringMatching(/^[0-9a-f]{8}$/) });
    expect(error.message).toContain(String(error["errorId"]));
    expect(error.message).not.toContain("exploded");
    expect(h.logs.some((l) => l.includes("router exploded"))).toBe(true);
  });

  it("refuses the socket without the token and accepts the bearer subprotocol", async () => {
    const token = "ws-token-789";
    const h = await web({ token });
    expect(await refusedStatus(h.url)).toBe(401);
    const socket = await TestSocket.open(h.url, { protocols: [`bearer.${token}`] });
    sockets.push(socket);
    socket.send({ type: "hello", chatId: "c1", userId: "u1" });
    expect(await socket.next("history")).toEqual({ type: "history", messages: [] });
  });

  it("shows a resent message once", async () => {
    const h = await web();
    const { socket } = await hello(h.url, "c1");
    for (let i = 0; i < 2; i++) {
      socket.send({ type: "message", text: "again", messageId: "dup" });
      await socket.next("message", (f) => f.role === "bot");
    }
    const { history } = await hello(h.url, "c1");
    expect(texts(history).filter((t) => t === "user: again")).toHaveLength(1);
  });
});

describe("Transcript", () => {
  it("keeps the last 200 entries", async () => {
    const h = await web();
    const transcript = new Transcript(h.store);
    for (let i = 0; i < 205; i++) {
      await transcript.append("c9", { id: `e${i}`, role: "bot", text: `${i}`, attachments: [], at: new Date().toISOString() });
    }
    const entries = await transcript.list("c9");
    expect(entries).toHaveLength(200);
    expect(entries[0]?.text).toBe("5");
    expect(entries.at(-1)?.text).toBe("204");
  });
});

describe.skipIf(!process.env.REDIS_URL)("WebChat on Redis", () => {
  it("keeps the history across a restart", async () => {
    const storeUrl = process.env.REDIS_URL!;
    const first = await startWeb({ storeUrl });
    const chatId = `redis-${Date.now()}`;
    const { socket } = await TestSocket.hello(first.url, chatId);
    socket.send({ type: "message", text: "on redis" });
    await socket.next("message", (f) => f.role === "bot");
    await socket.close();
    await first.stop();

    const second = await web({ storeUrl, dataDir: first.dataDir });
    const { history } = await hello(second.url, chatId);
    expect(texts(history)).toEqual(["user: on redis", "bot: echo: on redis"]);
    await second.store.namespace("web").delete(chatId);
  });

  it("appends concurrent lines of one chat without losing any", async () => {
    const h = await web({ storeUrl: process.env.REDIS_URL! });
    const chatId = `redis-many-${Date.now()}`;
    await Promise.all(Array.from({ length: 20 }, (_, i) => h.channel.sendText({ channel: "web", chatId }, `line ${i}`)));
    const { history } = await hello(h.url, chatId);
    expect(history.messages as unknown[]).toHaveLength(20);
    await h.store.namespace("web").delete(chatId);
  });
});
