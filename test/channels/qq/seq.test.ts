/**
 * QQ sends to one message started at once in one process, on the real SQLite store: each takes its own msg_seq
 * before posting, so none is taken for a duplicate of another, and past the five replies a send is refused.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QqApi } from "../../../src/channels/qq/api.js";
import { QqSender } from "../../../src/channels/qq/send.js";
import type { SendError } from "../../../src/core/send-error.js";
import { createStore, type Store } from "../../../src/infra/store/index.js";
import { startFakeQq, type FakeQq } from "../../fakes/qq/index.js";
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

  it("a msg_seq this send took that QQ calls a duplicate was posted by someone else: the send fails instead of counting as sent", async () => {
    const { message, to } = await arrived("hi");
    // Another sender that does not take its msg_seq from the store (an older version of the gateway) posts first.
    await api.call("POST", `/v2/users/${message.chat.slice("c2c:".length)}/messages`, { msg_type: 0, content: "other", msg_id: message.data.id, msg_seq: 1 });
    const err = (await sender.sendText(to, "ours").catch((e: unknown) => e)) as SendError;
    expect(err.kind).toBe("rejected");
    expect(err.message).toContain("was posted by another send");
    await sender.sendText(to, "ours again");
    expect(qq.api.sent.filter((m) => m.msg_id === message.data.id).map((m) => [m.content, m.msg_seq])).toEqual([["other", 1], ["ours again", 2]]);
  });
});
