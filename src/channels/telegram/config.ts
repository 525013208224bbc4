/** The `channels.telegram` settings. */
import { z } from "zod";

export const telegramConfigSchema = z
  .strictObject({
    /** null: enabled when a token is set. */
    enabled: z.boolean().nullable().default(null),
    token: z.string().min(1).nullable().default(null),
    apiRoot: z.string().min(1).nullable().default(null),
  })
  .prefault({});
