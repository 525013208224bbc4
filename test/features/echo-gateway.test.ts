/** A feature living in test/, plugged in with one line: its section parses, and its tool, command and route answer. */
import { afterEach, describe, expect, it } from "vitest";
import { featureModules } from "../../src/features/modules.js";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { echoFeature, echoFeatureSeen } from "./echo-feature/index.js";

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("a test-only feature", () => {
  it("plugs in with one line in the module list: its section, tool, command, route, readiness and start/stop", async () => {
    const modules = { features: [...featureModules, echoFeature] };
    t = await startTestGateway({ access: { dmPolicy: "open" }, echo: { greeting: "hello" } } as never, { modules });
    expect((t.config as unknown as Record<string, unknown>).echo).toEqual({ greeting: "hello" });
    expect(echoFeatureSeen.started).toBe(1);

    const route = await fetch(`${t.url}/echo/ping`);
    expect(await route.json()).toEqual({ greeting: "hello" });
    const ready = (await (await fetch(`${t.url}/readyz`)).json()) as { components: Record<string, { ok: boolean; detail?: string }> };
    expect(ready.components.echo).toEqual({ ok: true, detail: "hello" });

    const command = await t.post({ chatId: "f1", userId: "ann", text: "/echo from a command" });
    expect(command.body.replies?.[0]?.text).toBe("hello: from a command");

    t.fake.enqueue({ toolCalls: [{ name: "echo_text", arguments: { text: "from the tool" } }] }, { text: "done" });
    const turn = await t.post({ chatId: "f1", userId: "ann", text: "use the echo tool" });
    expect(turn.body.replies?.[0]?.text).toBe("done");
    const toolResult = JSON.stringify(t.fake.requests.at(-1)?.body.messages?.at(-1));
    expect(toolResult).toContain("hello: from the tool");

    await t.close();
    t = undefined;
    expect(echoFeatureSeen.stopped).toBe(1);
  });

  it("refuses its section with a wrong type, naming the setting", async () => {
    await expect(startTestGateway({ echo: { greeting: 42 } } as never, { modules: { features: [...featureModules, echoFeature] } })).rejects.toThrow(/greeting/);
  });
});
