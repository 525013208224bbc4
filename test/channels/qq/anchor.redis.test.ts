/**
 * The QQ reply anchor kept by two replicas on one Redis: a message arriving at one while the other counts a reply to
 * the message before, and replies from both counted against one message. The interleaving is set by holding one
 * replica's store writes until the test lets them through.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@keyv/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QqApi } from "../../../src/channels/qq/api.js";
import { QqSender } from "../../../src/channels/qq/send.js";
import { createStore, type Store } from "../../../src/infra/store/index.js";
import { startFakeQq, type FakeQq } from "../../fakes/qq/index.js";
import { silentLog } from "../../scheduler/helpers.js";

const REDIS_URL = process.env.REDIS_URL;
const RUN_PREFIX = `switchboard-test:${randomUUID()}:`;

/** What a store does to change something: these calls wait while writes are held. */
const WRITES = new Set(["set", "setMany", "delete", "add", "addWithin"]);

interface HeldWrites {
  /** Resolves when the first held write is waiting. */
  reached: Promise<void>;
  /** Lets the held writes through. */
  release(): void;
}

/** A store whose namespaces' and tallies' writes can be held back: the moment between a replica's read and its write. */
function holdable(store: Store): { store: Store; hold(): HeldWrites } {
  let held: { reached: () => void; released: Promise<void> } | undefined;
  const withHeldWrites = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, name) {
        const value: unknown = Reflect.get(object, name);
        if (typeof value !== "function") return value;
        if (!WRITES.has(String(name))) return value.bind(object);
        return async (...args: unknown[]) => {
          if (held) {
            held.reached();
            await held.released;
          }
          return (value as (...a: unknown[]) => unknown).apply(object, args);
        };
      },
    });
  const wrapped = new Proxy(store, {
    get(object, name) {
      if (name === "namespace" || name === "tallies") return (ns: Parameters<Store["namespace"]>[0]) => withHeldWrites(object[name](ns));
      const value: unknown = Reflect.get(object, name);
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
  return {
    store: wrapped,
    hold: () => {
      let reached!: () => void;
      let release!: () => void;
      const reachedP = new Promise<void>((resolve) => (reached = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      held = { reached, released };
      return {
        reached: reachedP,
        release: () => {
          held = undefined;
          release();
        },
      };
    },
  };
}

describe.skipIf(!REDIS_URL)("the QQ reply anchor on two replicas", () => {
  let qq: FakeQq;
  const stores: Store[] = [];

  beforeAll(async () => {
    qq = await startFakeQq();
  });

  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await qq.close();
    const client = createClient({ url: REDIS_URL! });
    await client.connect();
    for await (const keys of client.scanIterator({ MATCH: `${RUN_PREFIX}*` })) if (keys.length > 0) await client.del(keys);
    await client.close();
  });

  /** Two senders of one bot, each with its own connection to the same Redis keys; the second's writes can be held. */
  const twoReplicas = async () => {
    const keyPrefix = `${RUN_PREFIX}${randomUUID()}:`;
    const open = () => createStore({ url: REDIS_URL!, dataDir: "/nonexistent", log: silentLog, keyPrefix });
    const [storeA, storeB] = await Promise.all([open(), open()]);
    stores.push(storeA, storeB);
    const b = holdable(storeB);
    const sender = (store: Store) => {
      const settings = qq.settings() as { apiUrl: string; tokenUrl: string; appId: string; appSecret: string };
      return new QqSender({ api: new QqApi(settings), store, markdown: false, appId: settings.appId, log: silentLog });
    };
    return { a: sender(storeA), b: sender(b.store), holdB: b.hold };
  };

  const sentSince = (from: number) => qq.api.sent.slice(from).map((m) => [m.msg_id, m.msg_seq, m.content]);

  it("a message arriving at one replica while the other counts a reply to the one before: the newer stays the anchor, each keeps its own count", async () => {
    const { a, b, holdB } = await twoReplicas();
    const openid = randomUUID().replace(/-/g, "").toUpperCase();
    const first = qq.c2c("first", { openid });
    const to = { channel: "qq", chatId: first.chat };
    const from = qq.api.sent.length;
    await a.received(first.chat, first.data.id, new Date());

    // B answers the first message, then waits just before taking its msg_seq; meanwhile the second arrives at A.
    const held = holdB();
    const reminder = b.sendText(to, "reminder");
    await held.reached;
    const second = qq.c2c("second", { openid });
    await a.received(second.chat, second.data.id, new Date());
    held.release();
    await reminder;

    await a.sendText(to, "to the second");
    await b.sendText(to, "again");
    expect(sentSince(from)).toEqual([
      [first.data.id, 1, "reminder"],
      [second.data.id, 1, "to the second"],
      [second.data.id, 2, "again"],
    ]);
    // The reply counted on the first message stands: a picture answering it takes the next msg_seq.
    const png = join(await mkdtemp(join(tmpdir(), "switchboard-qq-")), "chart.png");
    await writeFile(png, Buffer.from("89504e470d0a1a0a-fake-png"));
    await a.sendFile(to, { path: png, kind: "image", name: "chart.png" }, { replyTo: first.data.id });
    expect(qq.api.sent.at(-1)).toMatchObject({ msg_type: 7, msg_id: first.data.id, msg_seq: 2 });
  });

  it("replicas sending to one message at once take distinct msg_seq values, and both arrive", async () => {
    const { a, b } = await twoReplicas();
    const message = qq.c2c("hello", { openid: randomUUID().replace(/-/g, "").toUpperCase() });
    const to = { channel: "qq", chatId: message.chat };
    await a.received(message.chat, message.data.id, new Date());
    await Promise.all([a.sendText(to, "from A"), b.sendText(to, "from B", { replyTo: message.data.id })]);
    const posted = qq.api.sent.filter((m) => m.msg_id === message.data.id);
    expect(posted.map((m) => m.content).sort()).toEqual(["from A", "from B"]);
    expect(posted.map((m) => m.msg_seq).sort()).toEqual([1, 2]);
  });

  it("replies from both replicas count against one message's five", async () => {
    const { a, b } = await twoReplicas();
    const message = qq.c2c("hello", { openid: randomUUID().replace(/-/g, "").toUpperCase() });
    const to = { channel: "qq", chatId: message.chat };
    const from = qq.api.sent.length;
    await a.received(message.chat, message.data.id, new Date());
    for (const [i, replica] of [a, b, a, b, a].entries()) await replica.sendText(to, `reply ${i + 1}`);
    expect(sentSince(from).map(([, seq]) => seq)).toEqual([1, 2, 3, 4, 5]);
    await expect(b.sendText(to, "sixth")).rejects.toThrow("has had its 5 replies");
  });

  it("a turn run again on the other replica under the same reply key, with a longer answer: the parts beyond the first attempt's take new values", async () => {
    const { a, b } = await twoReplicas();
    const message = qq.c2c("explain", { openid: randomUUID().replace(/-/g, "").toUpperCase() });
    const to = { channel: "qq", chatId: message.chat };
    const from = qq.api.sent.length;
    await a.received(message.chat, message.data.id, new Date());
    const reply = { replyTo: message.data.id, idempotencyKey: `reply-${message.data.id}` };
    await a.sendText(to, "x".repeat(4_990), reply);
    await b.sendText(to, "reminder");
    expect(await b.sendText(to, ["x", "y", "z"].map((c) => c.repeat(4_990)).join("\n\n"), reply)).toHaveLength(3);
    expect(sentSince(from).map(([, seq, content]) => [seq, String(content).slice(0, 1)])).toEqual([[1, "x"], [2, "r"], [3, "y"], [4, "z"]]);
  });

  it("long answers from both replicas at once to a message with two replies left: one is cut to the two, the other refused", async () => {
    const { a, b } = await twoReplicas();
    const message = qq.c2c("busy", { openid: randomUUID().replace(/-/g, "").toUpperCase() });
    const to = { channel: "qq", chatId: message.chat };
    await a.received(message.chat, message.data.id, new Date());
    for (const replica of [a, b, a]) await replica.sendText(to, "short");
    const answer = ["p", "q", "r", "s"].map((c) => c.repeat(4_990)).join("\n\n");
    const outcomes = await Promise.allSettled([a.sendText(to, answer), b.sendText(to, answer)]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
    const posted = qq.api.sent.filter((m) => m.msg_id === message.data.id);
    expect(posted.map((m) => m.msg_seq)).toEqual([1, 2, 3, 4, 5]);
    expect(posted.at(-1)!.content.endsWith("(cut: QQ takes only 5 replies to one message)")).toBe(true);
  });
});
