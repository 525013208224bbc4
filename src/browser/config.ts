/** The `browser` section: whether the agent gets Chromium, where it is, and how many contexts live how long. */
import { z } from "zod";

export const browserConfigSchema = z
  .object({
    enabled: z.boolean().default(true),
    /** Default: `chromium` (or chromium-browser, google-chrome) on PATH. */
    executablePath: z.string().min(1).optional(),
    idleMinutes: z.number().positive().default(10),
    maxContexts: z.number().int().min(1).max(32).default(4),
  })
  .prefault({});

export type BrowserConfig = z.output<typeof browserConfigSchema>;
