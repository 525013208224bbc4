/** Replicas on one Redis: WebChat frames cross them, a session's turns run one at a time in order, limits are shared. */
import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "@keyv/redis";
import { createStore } from "../../src/infra/store/index.js";
import { emptySession, SessionHistory, StaleTurnError } from "../../src/sessions/history.js";
import { openChat, userTextsOf, type ChatSocket } from "../e2e/harness.js";
import { captureLog } from "../helpers/captured-log.js";
import { eventually } from "../helpers/wait.js";
import { deleteKeys, REDIS_URL, startReplicas, type Replicas } from "./harness.js";

/** Which of the test's words the request's last user message carries (the text arrives framed). */
const wordOf = (request: Parameters<typeof userTextsOf>[0]): string => /first|second|third/.exec(userTextsOf(request).at(-1) ?? "")?.[0] ?? "";

describe.skipIf(!REDIS_URL)("replicas on one Redis", () => {
  let running: Replicas | undefined;
  const sockets: ChatSocket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    await running?.close();
    running = undefined;
  });

  it("a WebChat tab on replica A sees the user's message, the streamed deltas and the reply of a turn run on B", async () => {
    running = await startReplicas(2);
    const [a, b] = running.replicas;
    const reply = "Replies cross replicas over pub/sub.";
    running.fake.enqueue({ text: reply, streaming: { pieceSize: 4, delayMs: 5 } });
    const tab = await openChat(a!.url, "c1", "alice");
    sockets.push(tab);
    // A frame nobody can read (another program on the channel) is logged and dropped; the next ones still arrive.
    const redis = createClient({ url: REDIS_URL! });
    await redis.connect();
    await redis.publish(`${running.keyPrefix}bus:web:frames`, "not a frame");
    await redis.close();

    const answered = await b!.post({ chatId: "c1", userId: "alice", text: "hello from another tab" });
    expect(answered.body.replies?.map((r) => r.text)).toEqual([reply]);

    await tab.waitFor((f) => f.type === "message" && f.role === "bot" && f.text === reply);
    const seen = tab.frames.filter((f) => f.type !== "history");
    expect(seen[0]).toMatchObject({ type: "message", role: "user", text: "hello from another tab" });
    const deltas = seen.filter((f) => f.type === "draft").map((f) => String(f.delta ?? f.text));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(reply);
    const kinds = seen.map((f) => f.type);
    expect(kinds.indexOf("draft_end")).toBeLessThan(kinds.lastIndexOf("message"));
    expect(a!.logs.some((line) => line.msg === "a chat frame from another replica could not be read; dropped")).toBe(true);
  });

  it("three messages of one session at two replicas run one after the other, in the order they arrived", async () => {
    running = await startReplicas(2);
    const [a, b] = running.replicas;
    const { fake, keyPrefix } = running;
    fake.respondWith((request) => {
      const word = wordOf(request);
      // The first turn is slow, so the others arrive while it runs.
      return word === "first" ? { text: "answer to first", streaming: { pieceSize: 1, delayMs: 25 } } : { text: `answer to ${word}` };
    });
    const redis = createClient({ url: REDIS_URL! });
    await redis.connect();
    const ticketsTaken = async (n: number) =>
      eventually(async () => Number(await redis.hGet(`${keyPrefix}line:session:web:c2`, "next")) >= n, `${n} tickets taken`);
    try {
      const first = a!.post({ chatId: "c2", userId: "u", text: "first" });
      await fake.waitForRequests(1);
      const second = b!.post({ chatId: "c2", userId: "u", text: "second" });
      await ticketsTaken(2);
      const third = a!.post({ chatId: "c2", userId: "u", text: "third" });
      const answers = await Promise.all([first, second, third]);
      expect(answers.map((r) => r.body.replies?.[0]?.text)).toEqual(["answer to first", "answer to second", "answer to third"]);
    } finally {
      await redis.close();
    }
    const seen = fake.requests.map(userTextsOf);
    expect(seen.map((texts) => texts.at(-1))).toEqual([expect.stringContaining("first"), expect.stringContaining("second"), expect.stringContaining("third")]);
    // Each turn saw the finished turn before it (its answer) in the history, whichever replica ran it.
    const answersSeen = fake.requests.map((r) => (r.body.messages ?? []).filter((m) => m.role === "assistant").map((m) => JSON.stringify(m.content)));
    expect(answersSeen[1]!.some((t) => t.includes("answer to first"))).toBe(true);
    expect(answersSeen[2]!.some((t) => t.includes("answer to second"))).toBe(true);
  });

  it("/stop on replica B stops the session's turn running on A", async () => {
    running = await startReplicas(2);
    const [a, b] = running.replicas;
    running.fake.respondWith(() => ({ text: "a very long answer that takes its time", streaming: { pieceSize: 1, delayMs: 200 } }));
    const long = a!.post({ chatId: "c6", userId: "u", text: "tell me everything" });
    await running.fake.waitForRequests(1);
    const stop = await b!.post({ chatId: "c6", userId: "u", text: "/stop" });
    expect(stop.body.replies?.[0]?.text).toMatch(/the others were told to stop/);
    expect((await long).body.outcome).toBe("stopped");
  });

  it("the per-user rate limit counts the messages of both replicas", async () => {
    running = await startReplicas(2, { access: { web: { limits: true }, limits: { perUser: { messages: 2, windowSeconds: 60 } } } });
    const [a, b] = running.replicas;
    running.fake.respondWith(() => ({ text: "ok" }));
    const outcomes = [];
    for (const [i, replica] of [a, b, a].entries()) outcomes.push(await replica!.post({ chatId: `c3-${i}`, userId: "u", text: `message ${i}` }));
    expect(outcomes.map((r) => r.body.outcome)).toEqual(["answered", "answered", "refused"]);
    expect(outcomes[2]!.body.replies?.[0]?.text).toMatch(/slow down/);
    expect(running.fake.requests).toHaveLength(2);
  });

  it("a session held by a replica that died is free once its lease runs out", async () => {
    running = await startReplicas(1);
    const [b] = running.replicas;
    running.fake.respondWith(() => ({ text: "taken over" }));
    const dead = await createStore({ url: REDIS_URL!, keyPrefix: running.keyPrefix, dataDir: "/nonexistent", log: captureLog([], "fatal").log });
    const started = Date.now();
    const held = await dead.coordinator.takeTicket("session:web:c4", { leaseMs: 500 });
    await dead.close(); // no renewal and no release: as if the process was killed
    const answer = await b!.post({ chatId: "c4", userId: "u", text: "anyone there?" });
    expect(answer.body.replies?.[0]?.text).toBe("taken over");
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(held.token).toBe(1);
  });
});

describe.skipIf(!REDIS_URL)("session history fencing on Redis", () => {
  it("refuses a save with an older token than one that saved, and keeps the newer history", async () => {
    const keyPrefix = `switchboard-test:fence-${Date.now()}:`;
    const { log } = captureLog([], "fatal");
    const store = await createStore({ url: REDIS_URL!, keyPrefix, dataDir: "/nonexistent", log });
    try {
      const history = new SessionHistory(store, log);
      const newer = emptySession();
      newer.messages.push({ role: "user", content: "from the turn that took over" });
      await history.save("web:c5", newer, 7);
      const stale = emptySession();
      stale.messages.push({ role: "user", content: "from the replica that lost its lease" });
      await expect(history.save("web:c5", stale, 6)).rejects.toThrow(StaleTurnError);
      expect((await history.load("web:c5")).messages).toEqual(newer.messages);
    } finally {
      await store.close();
      await deleteKeys(keyPrefix);
    }
  });
});
