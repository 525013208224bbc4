/** The `approvals` section: which calls wait for a person's approval, and for how long. */
import { z } from "zod";

export const approvalsConfigSchema = z
  .object({
    /**
     * off: calls run as permitted. tainted: a call of an `exec` or `admin` tool (or one named in `tools`) waits for
     * approval once its turn took in third-party content. always: every such call waits.
     */
    mode: z.enum(["off", "tainted", "always"]).default("tainted"),
    /** More tools that need approval, by name, whatever their risk class. */
    tools: z.array(z.string().regex(/^[a-z][a-z0-9_]*$/, "a tool name (snake_case)")).default([]),
    /** An unanswered request is denied after this long. */
    timeoutSeconds: z.number().int().min(10).max(86_400).default(300),
  })
  .strict()
  .prefault({});

export type ApprovalsConfig = z.output<typeof approvalsConfigSchema>;
