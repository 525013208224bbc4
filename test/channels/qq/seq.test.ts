/**
 * QQ sends to one message started at once in one process, on the real SQLite store: each takes its own msg_seq
 * before posting, so none is taken for a duplicate of another; a long answer is cut to the replies left, and a send
 * is refused only when none are left.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QqApi } from "../../../src/channels/qq/api.js";
import { QqSender } from "../../../src/channels/qq/send.js";
import type { SendError } from "../../../src/core/send-error.js";
import { createStore, type Store } from "../../../src/infra/store/index.js";
import { startFakeQq, type FakeQq } from "../../fakes/qq/index.js";
import { captureLog } from "../../helpers/captured-log.js";
import { silentLog } from "../../scheduler/helpers.js";

describe("QQ sends to one message at once, in one process", () => {
  let qq: FakeQq;
  let store: Store;
  let sender: QqSender;
  let api: QqApi;

  beforeAll(async () => {
    qq = await startFakeQq();
    store = await createStore({ url: null, dataDir: await mkdtemp(join(tmpdir(), "switchboard-qq-seq-")), log: silentLog });
    const settings = qq.settings() as { apiUrl: string; tokenUrl: string; appId: string; appSecret: string };
    api = new QqApi(settings);
    sender = new QqSender({ api, store, markdown: false, appId: settings.appId, log: silentLog });
  });

  afterAll(async () => {
    await store.close();
    await qq.close();
  });

  const arrived = async (text: string) => {
    const message = qq.c2c(text);
    await sender.received(message.chat, message.data.id, new Date());
    return { message, to: { channel: "qq", chatId: message.chat } };
  };

  it("a reminder and a reply started together take distinct msg_seq values, and both arrive", async () => {
    const { message, to } = await arrived("remind me");
    await Promise.all([sender.sendText(to, "reminder"), sender.sendText(to, "reply", { replyTo: message.data.id })]);
    const posted = qq.api.sent.filter((m) => m.msg_id === message.data.id);
    expect(posted.map((m) => m.content).sort()).toEqual(["reminder", "reply"]);
    expect(posted.map((m) => m.msg_seq).sort()).toEqual([1, 2]);
  });

  it("six sends at once: five are posted, the sixth is refused, none is lost", async () => {
    const { message, to } = await arrived("hello");
    const outcomes = await Promise.allSettled([1, 2, 3, 4, 5, 6].map((i) => sender.sendText(to, `send ${i}`)));
    const posted = qq.api.sent.filter((m) => m.msg_id === message.data.id);
    expect(posted.map((m) => m.msg_seq).sort()).toEqual([1, 2, 3, 4, 5]);
    const refused = outcomes.flatMap((o, i) => (o.status === "rejected" ? [{ i, err: o.reason as Error }] : []));
    expect(refused).toHaveLength(1);
    expect(refused[0]!.err.message).toContain("has had its 5 replies");
    // Every send that resolved is one that QQ holds.
    const delivered = outcomes.flatMap((o, i) => (o.status === "fulfilled" ? [`send ${i + 1}`] : []));
    expect(posted.map((m) => m.content).sort()).toEqual(delivered.sort());
  });

  /** Posts as a sender that does not take its msg_seq from the store would (an older version of the gateway). */
  const postedElsewhere = (message: { chat: string; data: { id: string } }, ...seqs: number[]) =>
    Promise.all(seqs.map((seq) => api.call("POST", `/v2/users/${message.chat.slice("c2c:".length)}/messages`, { msg_type: 0, content: `other ${seq}`, msg_id: message.data.id, msg_seq: seq })));
  const postedTo = (message: { data: { id: string } }) => qq.api.sent.filter((m) => m.msg_id === message.data.id).map((m) => [m.content.slice(0, 12), m.msg_seq]);
  /** An answer of `n` parts of 5,000 characters, each its own letter. */
  const long = (n: number) => [..."abcdefg"].slice(0, n).map((c) => c.repeat(4_990)).join("\n\n");

  it("a msg_seq this send took that another sender posted: the part takes the next value left and arrives", async () => {
    const { message, to } = await arrived("hi");
    await postedElsewhere(message, 1, 2);
    expect(await sender.sendText(to, "ours")).toHaveLength(1);
    await sender.sendText(to, "ours again");
    expect(postedTo(message)).toEqual([["other 1", 1], ["other 2", 2], ["ours", 3], ["ours again", 4]]);
  });

  it("a picture whose msg_seq another sender posted goes on the next value", async () => {
    const { message, to } = await arrived("a chart please");
    await postedElsewhere(message, 1);
    const png = join(await mkdtemp(join(tmpdir(), "switchboard-qq-")), "chart.png");
    await writeFile(png, Buffer.from("89504e470d0a1a0a-fake-png"));
    await sender.sendFile(to, { path: png, kind: "image", name: "chart.png" }, { replyTo: message.data.id });
    expect(qq.api.sent.at(-1)).toMatchObject({ msg_type: 7, msg_id: message.data.id, msg_seq: 2 });
  });

  it("when another sender posted every msg_seq left, the send is refused, not counted as sent", async () => {
    const { message, to } = await arrived("hi");
    await postedElsewhere(message, 1, 2, 3, 4, 5);
    await expect(sender.sendText(to, "ours")).rejects.toThrow("has had its 5 replies");
    expect(postedTo(message)).toHaveLength(5);
  });

  it("with Markdown, a msg_seq another sender posted is not taken for a Markdown refusal: the part goes as Markdown on the next value", async () => {
    const { log, logs } = captureLog([]);
    const markdown = new QqSender({ api, store, markdown: true, appId: qq.appId, log });
    qq.api.markdownAllowed = true;
    try {
      const { message, to } = await arrived("hi");
      await postedElsewhere(message, 1);
      await markdown.sendText(to, "**ours**");
      expect(qq.api.sent.filter((m) => m.msg_id === message.data.id).map((m) => [m.msg_type, m.msg_seq])).toEqual([[0, 1], [2, 2]]);
      expect(logs.map((l) => l.msg)).not.toContain("QQ refused the Markdown message; sending it as plain text");
    } finally {
      qq.api.markdownAllowed = false;
    }
  });

  it("a send rerun under the same key with more parts than its first attempt takes new values for the parts beyond: none is lost", async () => {
    const { message, to } = await arrived("explain");
    const reply = { replyTo: message.data.id, idempotencyKey: `reply-${message.data.id}` };
    await sender.sendText(to, long(1), reply);
    await sender.sendText(to, "reminder");
    // The turn runs again (the replica that ran it stopped): the same reply key, a longer answer.
    expect(await sender.sendText(to, long(3), reply)).toHaveLength(3);
    expect(postedTo(message)).toEqual([["a".repeat(12), 1], ["reminder", 2], ["b".repeat(12), 3], ["c".repeat(12), 4]]);
    // Another attempt of the rerun posts nothing twice.
    expect(await sender.sendText(to, long(3), { ...reply, fromPart: 1 })).toHaveLength(2);
    expect(postedTo(message)).toHaveLength(4);
  });

  it("a send kept without its count (as written before) reuses its first value only; the other parts take new ones", async () => {
    const { message, to } = await arrived("old");
    await sender.sendText(to, long(1), { replyTo: message.data.id });
    await store.namespace("meta").set(`qq-seqs:${qq.appId}:old-send`, { msgId: message.data.id, first: 1, from: 0 });
    await sender.sendText(to, "reminder");
    expect(await sender.sendText(to, long(2), { idempotencyKey: "old-send" })).toHaveLength(2);
    expect(postedTo(message)).toEqual([["a".repeat(12), 1], ["reminder", 2], ["b".repeat(12), 3]]);
  });

  it("a long answer to a message that had replies is cut to the replies left, its last part saying so", async () => {
    const { message, to } = await arrived("tell me everything");
    await sender.sendText(to, "one moment");
    const sent = await sender.sendText(to, long(5), { replyTo: message.data.id });
    expect(sent).toHaveLength(4);
    const posted = qq.api.sent.filter((m) => m.msg_id === message.data.id);
    expect(posted.map((m) => m.msg_seq)).toEqual([1, 2, 3, 4, 5]);
    expect(posted.at(-2)!.content.startsWith("c")).toBe(true);
    expect(posted.at(-1)!.content.startsWith("d")).toBe(true);
    expect(posted.at(-1)!.content.endsWith("(cut: QQ takes only 5 replies to one message)")).toBe(true);
    await expect(sender.sendText(to, "more")).rejects.toThrow("has had its 5 replies");
  });

  it("a cut answer's retry lays its parts out as the first attempt did", async () => {
    const { message, to } = await arrived("and more");
    await sender.sendText(to, "first");
    await sender.sendText(to, "second");
    await sender.sendText(to, "third");
    const reply = { replyTo: message.data.id, idempotencyKey: `reply-${message.data.id}` };
    qq.api.fail(/messages$/, 1, 503);
    const failed = (await sender.sendText(to, long(4), reply).catch((e: unknown) => e)) as SendError;
    expect(failed.kind).toBe("unavailable");
    expect(await sender.sendText(to, long(4), reply)).toHaveLength(2);
    const posted = qq.api.sent.filter((m) => m.msg_id === message.data.id);
    expect(posted.map((m) => [m.content.slice(0, 1), m.msg_seq])).toEqual([["f", 1], ["s", 2], ["t", 3], ["a", 4], ["b", 5]]);
    expect(posted.at(-1)!.content.endsWith("(cut: QQ takes only 5 replies to one message)")).toBe(true);
  });

  it("two long answers at once to a message with two replies left: one gets both, cut; the other is refused", async () => {
    const { message, to } = await arrived("busy");
    for (const text of ["1", "2", "3"]) await sender.sendText(to, text);
    const outcomes = await Promise.allSettled([sender.sendText(to, long(5)), sender.sendText(to, long(4))]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
    expect((refused.reason as Error).message).toContain("has had its 5 replies");
    const posted = qq.api.sent.filter((m) => m.msg_id === message.data.id);
    expect(posted.map((m) => m.msg_seq)).toEqual([1, 2, 3, 4, 5]);
    expect(posted.at(-1)!.content.endsWith("(cut: QQ takes only 5 replies to one message)")).toBe(true);
  });
});
