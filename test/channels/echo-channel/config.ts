/** The `channels.echo` section: no credentials, so it is on unless `enabled: false`. */
import { z } from "zod";

export const echoConfigSchema = z
  .strictObject({
    enabled: z.boolean().nullable().default(null),
    /** Longest text of one message; longer texts are split. */
    maxTextLength: z.number().int().min(16).default(1000),
  })
  .prefault({});

export type EchoConfig = z.output<typeof echoConfigSchema>;
