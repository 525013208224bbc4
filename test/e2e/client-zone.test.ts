/** A client's reported time zone (WebChat's browser) becomes the user's zone until they choose one with /timezone. */
import { afterEach, describe, expect, it } from "vitest";
import { turnNotesOf } from "../fakes/openai-server.js";
import { startTestGateway, type TestGateway } from "./harness.js";

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** The local time the gateway noted after the message, in the sender's zone. */
const lastPrompt = (gw: TestGateway): string => turnNotesOf(gw.fake.requests.at(-1)!);

describe("the client's time zone", () => {
  it("is used from the first message", async () => {
    t = await startTestGateway({ agent: { timezone: "UTC" } });
    t.fake.enqueue({ text: "ok" });
    expect((await t.post({ chatId: "z1", userId: "ana", text: "hi", timeZone: "Asia/Tokyo" })).body.outcome).toBe("answered");
    expect(lastPrompt(t)).toContain("Asia/Tokyo");
  });

  it("does not replace a zone the user chose with /timezone", async () => {
    t = await startTestGateway({ agent: { timezone: "UTC" } });
    await t.post({ chatId: "z2", userId: "ben", text: "/timezone Europe/Paris" });
    t.fake.enqueue({ text: "ok" });
    await t.post({ chatId: "z2", userId: "ben", text: "hi", timeZone: "Asia/Tokyo" });
    expect(lastPrompt(t)).toContain("Europe/Paris");
    expect(lastPrompt(t)).not.toContain("Asia/Tokyo");
  });

  it("is ignored when it is not a known zone", async () => {
    t = await startTestGateway({ agent: { timezone: "UTC" } });
    t.fake.enqueue({ text: "ok" });
    expect((await t.post({ chatId: "z3", userId: "cy", text: "hi", timeZone: "Mars/Olympus_Mons" })).body.outcome).toBe("answered");
    expect(lastPrompt(t)).not.toContain("Mars/Olympus_Mons");
  });

  it("is refused with a clear error when it is not shaped like a zone name", async () => {
    t = await startTestGateway();
    const res = await t.post({ chatId: "z4", userId: "di", text: "hi", timeZone: "<script>" });
    expect(res.status).toBe(400);
  });
});
