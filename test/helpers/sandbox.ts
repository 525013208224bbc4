/**
 * Sandboxes for tests, probed once per configuration. Tests that need bubblewrap skip, with the reason, only where
 * it is not installed (CI installs it: .ci/run).
 */
import { pino } from "pino";
import type { z } from "zod";
import { Sandbox, sandboxConfigSchema, sandboxStatus } from "../../src/infra/sandbox/index.js";

const cache = new Map<string, Promise<Sandbox>>();

export function testSandbox(config: z.input<typeof sandboxConfigSchema> = {}): Promise<Sandbox> {
  const key = JSON.stringify(config);
  let sandbox = cache.get(key);
  if (!sandbox) {
    sandbox = Sandbox.create(sandboxConfigSchema.parse(config), pino({ level: "silent" }));
    cache.set(key, sandbox);
  }
  return sandbox;
}

const status = await sandboxStatus(sandboxConfigSchema.parse({}));

/** Why sandbox tests cannot run here, or undefined when bubblewrap works. */
export const noSandboxReason: string | undefined = status.ok ? undefined : `${status.reason} (fix: ${status.fix})`;
if (noSandboxReason) console.warn(`sandbox tests skipped: ${noSandboxReason}`);
