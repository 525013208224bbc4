/**
 * `switchboard doctor` for WeCom: fetches an access token with the app's credentials and reads the application
 * (`/cgi-bin/agent/get`), through the same client the channel uses; also checks that the EncodingAESKey decodes.
 */
import { encrypt } from "@wecom/crypto";
import { WecomApi } from "./api.js";
import { completeSettings, type WecomConfig } from "./config.js";

export async function checkWecom(config: WecomConfig): Promise<string> {
  const settings = completeSettings(config);
  try {
    encrypt(settings.aesKey, "check", settings.corpId);
  } catch {
    throw new Error("WECOM_AES_KEY does not decode to a 32-byte AES key");
  }
  const api = new WecomApi({ baseUrl: settings.apiUrl, corpId: settings.corpId, corpSecret: settings.corpSecret, timeoutMs: 15_000 });
  const agent = await api.call("GET", `/cgi-bin/agent/get?agentid=${settings.agentId}`);
  const name = typeof agent.name === "string" ? agent.name : `agent ${settings.agentId}`;
  return `access token obtained; application "${name}" (${settings.agentId}); callback at ${settings.callbackPath}`;
}
