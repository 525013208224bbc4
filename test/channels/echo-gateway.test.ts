/** The fifth channel in the whole gateway: plugged in by one line, a message in and the model's reply out. */
import { afterEach, describe, expect, it } from "vitest";
import { channelModules } from "../../src/channels/modules.js";
import { startTestGateway, userTextsOf, type TestGateway } from "../e2e/harness.js";
import { eventually } from "../helpers/wait.js";
import { echoChannel, echoPlatform } from "./echo-channel/index.js";

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("a test-only fifth channel", () => {
  it("plugs in with one line in the module list: its section parses, a message goes in, the agent's reply comes out", async () => {
    const modules = { channels: [...channelModules, echoChannel] };
    t = await startTestGateway({ access: { dmPolicy: "open" }, channels: { echo: { maxTextLength: 500 } } as never }, { modules });
    t.fake.enqueue({ text: "Hello from the model." });
    await echoPlatform.post("echo-chat", "echo-user", "hi, who are you?");
    const reply = await eventually(() => echoPlatform.sent.find((s) => s.chatId === "echo-chat"), "the reply");
    expect(reply.text).toBe("Hello from the model.");
    expect(userTextsOf(t.fake.requests[0]!).at(-1)).toContain("hi, who are you?");
    expect((t.config.channels as Record<string, unknown>).echo).toEqual({ enabled: null, maxTextLength: 500 });
  });
});
