/**
 * A feature that lives in test/: proof that a feature plugs in with its folder and one line in the module list.
 * It has a section of its own (`echo.greeting`), a tool, a chat command, an HTTP route and a readiness line.
 */
import { z } from "zod";
import { implementTool } from "../../../src/core/tools.js";
import { defineFeature } from "../../../src/features/module.js";

const echoConfigSchema = z.strictObject({ greeting: z.string().default("echo") }).prefault({});

/** What the feature saw of the gateway, for the test to check. */
export const echoFeatureSeen = { started: 0, stopped: 0 };

export const echoFeature = defineFeature({
  name: "echo",
  configSchema: echoConfigSchema,
  create: ({ settings, http }) => {
    http.app.get("/echo/ping", (c) => c.json({ greeting: settings.greeting }));
    const echoTool = implementTool(
      {
        name: "echo_text",
        category: "Echo",
        shortDescription: "Repeat a text back, with the configured greeting in front",
        description: "Repeats the text.\n\nWhen to use: in tests.\n\nExample: echo_text({\"text\": \"hi\"})",
        input: z.object({ text: z.string().describe("What to repeat") }),
        risk: "read",
      },
      async ({ text }) => `${settings.greeting}: ${text}`,
    );
    return {
      handlers: [{ name: "echo", tools: [echoTool] }],
      commands: [{ name: "echo", summary: "repeat what follows", run: async (args: string) => `${settings.greeting}: ${args}` }],
      readiness: { echo: { check: () => ({ ok: true, detail: settings.greeting }) } },
      start: () => void (echoFeatureSeen.started += 1),
      stop: () => void (echoFeatureSeen.stopped += 1),
    };
  },
});
