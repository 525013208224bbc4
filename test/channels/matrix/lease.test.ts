/**
 * Matrix sync under the replica lease: two channels on one store and one lease table sync one account; only the
 * holder syncs, the standby sends, and after a hand-over the new holder resumes from the stored next_batch.
 */
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { channelRunner, type ChannelRunner } from "../../../src/channels/leased.js";
import { MatrixChannel } from "../../../src/channels/matrix/channel.js";
import { targetOf, type InboundHandler } from "../../../src/core/types.js";
import { LocalLeases } from "../../../src/infra/store/local-leases.js";
import { startFakeMatrix, textMessage, type FakeMatrix } from "../../fakes/matrix/index.js";
import { memoryStore } from "../../scheduler/helpers.js";
import { eventually } from "../../helpers/wait.js";
import { alice, FAST_SYNC, matrixSettings } from "./harness.js";

const log = pino({ level: "silent" });
const TIMING = { ttlMs: 1_000, renewMs: 200, retryMs: 100 };
let fake: FakeMatrix | undefined;
const runners: ChannelRunner[] = [];
afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.stop();
  await fake?.close();
});

const answering = (name: string, channel: MatrixChannel): InboundHandler => async (message) => {
  await channel.sendText(targetOf(message), `${name}: ${message.text}`);
  return "answered";
};

describe("Matrix receiving under a lease", () => {
  it("only the holder syncs; the standby takes over from the stored next_batch; each message is answered once", async () => {
    const f = (fake = await startFakeMatrix());
    const dm = f.createRoom({ people: [alice] });
    const store = memoryStore();
    const leases = new LocalLeases();
    const [a, b] = [0, 1].map(() => new MatrixChannel({ settings: matrixSettings(f, { userId: f.botUserId }), store, log, timing: FAST_SYNC }));
    expect(a!.singleConnection).toBe(`matrix:${f.botUserId}`);
    const runnerA = channelRunner(a!, { leases, replicaId: "a", timing: TIMING, log });
    const runnerB = channelRunner(b!, { leases, replicaId: "b", timing: TIMING, log });
    runners.push(runnerB, runnerA);
    await runnerA.start(answering("a", a!));
    await runnerB.start(answering("b", b!));
    expect(runnerB.heldLease?.()).toBeUndefined();
    await eventually(() => a!.status().connected, "the holder syncing");

    f.post(dm, alice.id, textMessage("one"));
    await eventually(() => f.botEvents().find((e) => e.content.body === "a: one"), "the holder's answer");
    await b!.sendText({ channel: "matrix", chatId: dm }, "sent by b");

    await runnerA.stop();
    await eventually(() => runnerB.heldLease?.(), "the standby to take over", 5_000);
    f.post(dm, alice.id, textMessage("two"));
    await eventually(() => f.botEvents().find((e) => e.content.body === "b: two"), "the new holder's answer", 5_000);
    expect(f.botEvents().map((e) => e.content.body)).toEqual(["a: one", "sent by b", "b: two"]);
    expect(f.syncs.filter((s) => s === undefined)).toHaveLength(1);
  });
});
