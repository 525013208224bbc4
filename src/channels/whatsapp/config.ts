/** The `channels.whatsapp` settings: the WhatsApp Business Cloud API. */
import { z } from "zod";

export const DEFAULT_API_URL = "https://graph.facebook.com/v21.0";

/** Where Meta posts webhooks (GET for the verification challenge, POST for notifications). */
export const WEBHOOK_PATH = "/whatsapp/webhook";

const secret = z.string().min(1).nullable().default(null);

export const whatsappConfigSchema = z
  .strictObject({
    /** null: enabled when the access token, phone number id, app secret and verify token are all set. */
    enabled: z.boolean().nullable().default(null),
    /** A system user's permanent token (or a temporary one from the app's API Setup page). */
    accessToken: secret,
    /** The business phone number's id (API Setup), not the phone number itself. */
    phoneNumberId: z.string().regex(/^\d+$/, "the numeric phone number id from API Setup").nullable().default(null),
    /** The app secret (App settings > Basic): webhooks are signed with it. */
    appSecret: secret,
    /** Any string you choose; the same goes into the webhook's "Verify token" field in the app dashboard. */
    verifyToken: secret,
    /** The Graph API root, with its version; tests point it at a fake. */
    apiUrl: z.url({ protocol: /^https?$/ }).default(DEFAULT_API_URL),
    templates: z
      .strictObject({
        /**
         * An approved template with one body variable ({{1}}): reminders and other messages sent more than 24 hours
         * after the person last wrote go through it, since WhatsApp refuses free-form messages then. null: none.
         */
        reminder: z.string().min(1).nullable().default(null),
        /** The template's language code as approved. */
        language: z.string().min(2).default("en_US"),
      })
      .prefault({}),
    /** Marks a message read (blue ticks) and shows "typing…" while it is answered. */
    readReceipts: z.boolean().default(true),
    /** The reaction put on a message while it is answered; null: none (the read receipt is the sign of life). */
    ackReaction: z.string().min(1).nullable().default(null),
    /** Largest file the bot downloads; WhatsApp's own limit is 100 MB (documents). */
    maxDownloadBytes: z.number().int().positive().default(100 * 1024 * 1024),
  })
  .refine((c) => c.enabled !== true || (c.accessToken !== null && c.phoneNumberId !== null && c.appSecret !== null && c.verifyToken !== null), {
    message: "enabled is true but WHATSAPP_ACCESS_TOKEN, WHATSAPP_PHONE_NUMBER_ID, WHATSAPP_APP_SECRET and WHATSAPP_VERIFY_TOKEN are not all set",
    path: ["accessToken"],
  })
  .prefault({});

export type WhatsAppConfig = z.output<typeof whatsappConfigSchema>;

/** The settings a running channel needs, with the credentials known to be set. */
export type WhatsAppSettings = WhatsAppConfig & { accessToken: string; phoneNumberId: string; appSecret: string; verifyToken: string };

export const whatsappFix =
  "check WHATSAPP_ACCESS_TOKEN (a system user token with whatsapp_business_messaging), WHATSAPP_PHONE_NUMBER_ID (API Setup) and WHATSAPP_API_URL";
