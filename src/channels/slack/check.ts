/**
 * `switchboard doctor` for Slack: auth.test with the bot token (which workspace, which bot), the scopes the
 * token lacks (Slack lists the granted ones in the X-OAuth-Scopes header), and in Socket Mode a real connection:
 * apps.connections.open with the app token, then the WebSocket until Slack's hello.
 */
import { SocketModeClient } from "@slack/socket-mode";
import { pino } from "pino";
import { describeFailure, slackLogger, webClient, webClientOptions } from "./api.js";
import { EVENTS_PATH, type SlackConfig } from "./config.js";

/** What the channel needs the bot token to be allowed: read DMs, channels and mentions, write, react, files. */
export const REQUIRED_SCOPES = ["app_mentions:read", "channels:history", "groups:history", "im:history", "chat:write", "reactions:write", "files:read", "files:write"];
/** Nice to have: user groups as roles, group DMs, files sent to a person by user id, people's languages. */
const OPTIONAL_SCOPES = ["usergroups:read", "mpim:history", "im:write", "users:read"];

/** The check reports what failed itself; the SDKs' own lines would only repeat it. */
const quiet = pino({ level: "silent" });

export async function checkSlack(settings: SlackConfig): Promise<string> {
  const { botToken, appToken, apiUrl, mode } = settings;
  if (botToken === null) throw new Error("no bot token configured (SLACK_BOT_TOKEN)");
  const client = webClient(botToken, apiUrl, quiet);
  const me = await client.auth.test().catch((err: unknown) => Promise.reject(new Error(`auth.test failed: ${describeFailure(err)}`)));
  const found = [`token valid for ${me.user ?? me.user_id} in ${me.team ?? me.team_id}`];
  const granted = new Set(me.response_metadata?.scopes ?? []);
  if (granted.size > 0) {
    const missing = REQUIRED_SCOPES.filter((scope) => !granted.has(scope));
    if (missing.length > 0) throw new Error(`${found.join("; ")}, but the bot token lacks the scopes ${missing.join(", ")}: add them under OAuth & Permissions and reinstall the app`);
    const optional = OPTIONAL_SCOPES.filter((scope) => !granted.has(scope));
    found.push(optional.length > 0 ? `scopes complete (optional ones missing: ${optional.join(", ")})` : "scopes complete");
  }
  if (mode === "events") return [...found, `Events API at ${EVENTS_PATH}`].join("; ");
  if (appToken === null) throw new Error(`${found.join("; ")}, but Socket Mode needs SLACK_APP_TOKEN (xapp-..., scope connections:write)`);
  await openSocket(appToken, apiUrl);
  return [...found, "Socket Mode connected"].join("; ");
}

async function openSocket(appToken: string, apiUrl: string): Promise<void> {
  const socket = new SocketModeClient({
    appToken,
    autoReconnectEnabled: false,
    logger: slackLogger(quiet),
    clientOptions: { slackApiUrl: apiUrl, ...webClientOptions(quiet) },
  });
  try {
    await socket.start();
  } catch (err) {
    throw new Error(`Socket Mode did not connect: ${describeFailure(err)}`, { cause: err });
  } finally {
    await socket.disconnect();
  }
}
