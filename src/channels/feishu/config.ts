/** The `channels.feishu` settings. */
import { z } from "zod";

export const feishuConfigSchema = z
  .strictObject({
    /** null: enabled when appId and appSecret are set. */
    enabled: z.boolean().nullable().default(null),
    appId: z.string().min(1).nullable().default(null),
    appSecret: z.string().min(1).nullable().default(null),
    /** feishu | lark | a URL. */
    domain: z.string().min(1).default("feishu"),
  })
  .prefault({});
