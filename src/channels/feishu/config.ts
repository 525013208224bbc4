/** The `channels.feishu` settings. */
import { z } from "zod";

const DOMAINS = { feishu: "https://open.feishu.cn", lark: "https://open.larksuite.com" } as const;

export const feishuConfigSchema = z
  .strictObject({
    /** null: enabled when appId and appSecret are set. */
    enabled: z.boolean().nullable().default(null),
    appId: z.string().min(1).nullable().default(null),
    appSecret: z.string().min(1).nullable().default(null),
    /** feishu (China) | lark (international) | the URL of a private deployment. */
    domain: z.union([z.enum(["feishu", "lark"]), z.url({ protocol: /^https?$/ })]).default("feishu"),
    /** websocket: the SDK's long connection (no public URL needed); webhook: Feishu posts events to the gateway. */
    mode: z.enum(["websocket", "webhook"]).default("websocket"),
    webhook: z
      .strictObject({
        /** Path on the gateway's HTTP server that receives the events. */
        path: z.string().regex(/^\/[\w\-./]*$/, "a path such as /feishu/events").default("/feishu/events"),
        /** "Verification Token" of the app's event subscription; every pushed event must carry it. */
        verificationToken: z.string().min(1).nullable().default(null),
        /** "Encrypt Key" of the event subscription: bodies are then encrypted and signed. */
        encryptKey: z.string().min(1).nullable().default(null),
      })
      .prefault({}),
    /** How replies are rendered: an interactive card with Markdown, a rich-text post, or plain text. */
    replyFormat: z.enum(["card", "post", "text"]).default("card"),
    /** Longest reply message in characters; longer replies are split. */
    maxMessageLength: z.number().int().min(200).max(20_000).default(4000),
    /**
     * Replies as they are written: "card" streams into CardKit cards (needs the cardkit:card:write scope; with
     * replyFormat card), "preview" edits a reply message in place, "off" sends the answer whole. Where CardKit is
     * refused, message edits take over.
     */
    streaming: z.enum(["off", "preview", "card"]).default("card"),
    /** The reaction put on a message while it is answered (a Feishu emoji_type such as Typing or OnIt); null: none. */
    ackReaction: z.string().min(1).nullable().default("Typing"),
  })
  .refine((c) => c.mode !== "webhook" || c.enabled === false || c.webhook.verificationToken !== null, {
    message:
      "mode webhook needs webhook.verificationToken (Events & Callbacks > Encryption strategy in the developer console)",
    path: ["webhook", "verificationToken"],
  })
  .prefault({});

export type FeishuConfig = z.output<typeof feishuConfigSchema>;

/** The Open API base URL of a `domain` setting. */
export function feishuBaseUrl(domain: string): string {
  return domain === "feishu" || domain === "lark" ? DOMAINS[domain] : domain.replace(/\/+$/, "");
}

/** What to do when the doctor's check fails. */
export const feishuFix =
  "check FEISHU_APP_ID / FEISHU_APP_SECRET and FEISHU_DOMAIN (feishu, lark or your deployment's URL), " +
  "and that the app has the bot capability enabled and is published";
