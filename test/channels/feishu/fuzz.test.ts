import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { InboundMessage } from "../../../src/core/types.js";
import { textEvent } from "../../fakes/feishu/events.js";
import { DATA } from "../../fakes/feishu/frames.js";
import { ENCRYPT_KEY, startRig, type Rig } from "./harness.js";
import { mutatedBody, mutatedEnvelope } from "./mutate.js";
import { seededRandom } from "../../helpers/seeded-random.js";

const BODIES = 1000;

let rig: Rig | undefined;
const crashes: unknown[] = [];
const onCrash = (err: unknown) => crashes.push(err);
beforeEach(() => {
  crashes.length = 0;
  process.on("unhandledRejection", onCrash);
  process.on("uncaughtException", onCrash);
});
afterEach(async () => {
  process.off("unhandledRejection", onCrash);
  process.off("uncaughtException", onCrash);
  await rig?.close();
  rig = undefined;
});

/** What every handed-over message must look like, however odd its event was. */
function expectWellFormed(message: InboundMessage): void {
  expect(message.id).toBe(`feishu:${message.platformMessageId}`);
  expect(typeof message.text).toBe("string");
  expect(["direct", "group"]).toContain(message.chat.type);
  for (const attachment of message.attachments) expect(attachment.ref).toMatch(/^[\w-]+\/[\w-]+$/);
  expect(Number.isNaN(message.receivedAt.getTime())).toBe(false);
}

describe("Feishu bad input", () => {
  // Each valid message event is now also recorded in the store-backed inbox: more store writes on a shared machine.
  it(`answers ${BODIES} mutated webhook bodies without a server error, a crash or an unhandled rejection`, { timeout: 60_000 }, async () => {
    // Warnings and errors are what this test reads; debug lines for 1,000 requests only slow it down.
    rig = await startRig({ mode: "webhook", encrypted: true, logLevel: "warn" });
    const random = seededRandom(20240611);
    const statuses = new Set<number>();
    for (let i = 0; i < BODIES; i += 1) {
      const encrypted = random() < 0.5;
      const answer = encrypted
        ? await rig.fake.pushWebhook(rig.webhookUrl, mutatedEnvelope(random) as object, { encryptKey: ENCRYPT_KEY })
        : await rig.fake.pushWebhook(rig.webhookUrl, {}, { rawBody: mutatedBody(random), signWith: ENCRYPT_KEY });
      statuses.add(answer.status);
    }
    expect([...statuses].every((status) => [200, 400, 401].includes(status))).toBe(true);

    await rig.fake.pushWebhook(rig.webhookUrl, textEvent("still answering", { chatId: "oc_after" }), { encryptKey: ENCRYPT_KEY });
    await expectAliveAndClean(rig);
  });

  it(`acknowledges ${BODIES} mutated event frames on the long connection without a crash`, async () => {
    rig = await startRig({ logLevel: "warn" });
    const random = seededRandom(8675309);
    const acks: unknown[] = [];
    for (let i = 0; i < BODIES; i += 1) {
      if (random() < 0.1) {
        const headers = { type: "event", message_id: `m${i}`, sum: "1", seq: "0" };
        await rig.fake.socket.sendFrame({ service: 33, method: DATA, headers, payload: Buffer.from(mutatedBody(random)) });
      } else {
        acks.push(await rig.fake.socket.push(mutatedEnvelope(random)));
      }
    }
    expect(acks.every((ack) => JSON.stringify(ack) === '{"code":200}')).toBe(true);
    await rig.fake.pushSocket(textEvent("still answering", { chatId: "oc_after" }));
    await expectAliveAndClean(rig);
  });
});

/** A valid message sent last is handed over; nothing crashed; no error was logged; everything handed over is sound. */
async function expectAliveAndClean(r: Rig): Promise<void> {
  await expect.poll(() => r.received.some((m) => m.chat.id === "oc_after"), { timeout: 5_000 }).toBe(true);
  expect(crashes).toEqual([]);
  // Enough mutated events were still messages to exercise normalization, not only the checks before it.
  expect(r.received.length).toBeGreaterThan(BODIES / 10);
  expect(r.logs.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([]);
  for (const message of r.received) expectWellFormed(message);
}
