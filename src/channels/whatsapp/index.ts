/** The WhatsApp channel module (Cloud API). */
import { defineChannel } from "../module.js";
import { WhatsAppChannel, type WhatsAppChannelOptions } from "./channel.js";
import { checkWhatsApp } from "./check.js";
import { whatsappConfigSchema, whatsappFix } from "./config.js";

export { WhatsAppChannel, type WhatsAppChannelOptions };

export const whatsappChannel = defineChannel({
  name: "whatsapp",
  configSchema: whatsappConfigSchema,
  credentials: [
    { field: "accessToken", env: "WHATSAPP_ACCESS_TOKEN" },
    { field: "phoneNumberId", env: "WHATSAPP_PHONE_NUMBER_ID" },
    { field: "appSecret", env: "WHATSAPP_APP_SECRET" },
    { field: "verifyToken", env: "WHATSAPP_VERIFY_TOKEN" },
  ],
  secretPaths: ["accessToken", "appSecret", "verifyToken"],
  envOverrides: {
    WHATSAPP_ACCESS_TOKEN: { path: "accessToken", type: "string" },
    WHATSAPP_PHONE_NUMBER_ID: { path: "phoneNumberId", type: "string" },
    WHATSAPP_APP_SECRET: { path: "appSecret", type: "string" },
    WHATSAPP_VERIFY_TOKEN: { path: "verifyToken", type: "string" },
    WHATSAPP_API_URL: { path: "apiUrl", type: "string" },
  },
  create: ({ settings, store, log, http }) => {
    const { accessToken, phoneNumberId, appSecret, verifyToken } = settings;
    // The config loader refuses an enabled channel without them; this only narrows the types.
    if (accessToken === null || phoneNumberId === null || appSecret === null || verifyToken === null) {
      throw new Error("The WhatsApp channel needs WHATSAPP_ACCESS_TOKEN, WHATSAPP_PHONE_NUMBER_ID, WHATSAPP_APP_SECRET and WHATSAPP_VERIFY_TOKEN");
    }
    return new WhatsAppChannel({ settings: { ...settings, accessToken, phoneNumberId, appSecret, verifyToken }, store, log, http });
  },
  check: checkWhatsApp,
  fix: whatsappFix,
});
