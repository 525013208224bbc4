/** The `channels.discord` settings. */
import { z } from "zod";

export const discordConfigSchema = z
  .strictObject({
    /** null: enabled when a token is set. */
    enabled: z.boolean().nullable().default(null),
    token: z.string().min(1).nullable().default(null),
    apiUrl: z.string().min(1).nullable().default(null),
  })
  .prefault({});
