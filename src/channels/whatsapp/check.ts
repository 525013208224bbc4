/** `switchboard doctor` for WhatsApp: the phone number's details with the configured token. */
import { GraphApi } from "./api.js";
import type { WhatsAppConfig } from "./config.js";

interface PhoneNumber {
  display_phone_number?: string;
  verified_name?: string;
  quality_rating?: string;
  code_verification_status?: string;
}

export async function checkWhatsApp(settings: WhatsAppConfig): Promise<string> {
  const { accessToken, phoneNumberId, apiUrl, appSecret, verifyToken } = settings;
  if (accessToken === null || phoneNumberId === null) throw new Error("WHATSAPP_ACCESS_TOKEN and WHATSAPP_PHONE_NUMBER_ID must both be set");
  const api = new GraphApi({ apiUrl, accessToken });
  const phone = await api.call<PhoneNumber>("GET", `${phoneNumberId}?fields=display_phone_number,verified_name,quality_rating,code_verification_status`);
  const missing = [appSecret === null ? "WHATSAPP_APP_SECRET" : null, verifyToken === null ? "WHATSAPP_VERIFY_TOKEN" : null].filter(Boolean);
  const webhook = missing.length > 0 ? `; webhooks cannot be received without ${missing.join(" and ")}` : "";
  return `phone number ${phone.display_phone_number ?? phoneNumberId} ("${phone.verified_name ?? "unnamed"}", quality ${phone.quality_rating ?? "unknown"})${webhook}`;
}
