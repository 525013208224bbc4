/** A reply hook learns the person's language (what espeak-ng picks its voice by): /language, else the default. */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineFeature } from "../../src/features/module.js";
import { featureModules } from "../../src/features/modules.js";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { eventually } from "../helpers/wait.js";

let t: TestGateway | undefined;
afterEach(() => t?.close().then(() => (t = undefined)));

describe("the reply's language", () => {
  it("reaches the reply hooks: English by default, Simplified Chinese after /language zh", async () => {
    const seen: string[] = [];
    const localeSpy = defineFeature({
      name: "localeSpy",
      configSchema: z.strictObject({}).prefault({}),
      create: () => ({ afterReply: async (reply) => void seen.push(reply.locale) }),
    });
    t = await startTestGateway({}, { modules: { features: [...featureModules, localeSpy] } });
    t.fake.respondWith(() => ({ text: "ok" }));
    await t.post({ chatId: "c1", userId: "ann", text: "hello" });
    await t.post({ chatId: "c1", userId: "ann", text: "/language zh" });
    await t.post({ chatId: "c1", userId: "ann", text: "你好" });
    await eventually(() => seen.length === 2, "both replies' hooks");
    expect(seen).toEqual(["en", "zh-Hans"]);
  });
});
