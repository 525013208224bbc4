/** Settings that open the bot wider than most people mean to; `switchboard doctor` shows them as warnings. */
import { isLoopbackHost } from "../infra/config/load.js";
import type { CoreConfig } from "../infra/config/core-schema.js";
import type { AccessConfig } from "./config.js";
import type { RiskClass } from "../core/tools.js";

export interface RiskySetting {
  detail: string;
  fix: string;
}

/** Beyond reading and chatting: what a stranger should not be handed (web reaches the internet for them). */
const POWERFUL: readonly RiskClass[] = ["web", "workspace", "exec", "admin"];

export function riskySettings(config: Pick<CoreConfig, "http"> & { access: AccessConfig }): RiskySetting[] {
  const { access, http } = config;
  const guest = access.permissions.guest;
  const risks: RiskySetting[] = [];
  const powerful = (classes: readonly RiskClass[]) => classes.filter((c) => POWERFUL.includes(c));

  const directGrant = powerful(guest.direct);
  if (access.dmPolicy === "open" && directGrant.length > 0) {
    risks.push({
      detail: `access.dmPolicy is open and guests in direct chats may use ${directGrant.join(", ")} tools: anyone who finds the bot can use them`,
      fix: "set access.dmPolicy to pairing or allowlist, or remove those classes from access.permissions.guest.direct",
    });
  }
  if (access.groupPolicy === "open") {
    const groupGrant = powerful(guest.group);
    const extra = groupGrant.length > 0 ? `, and their members may use ${groupGrant.join(", ")} tools` : "";
    risks.push({
      detail: `access.groupPolicy is open: every group the bot is added to may talk to it${extra}`,
      fix: "set access.groupPolicy to allowlist and list the chats in access.groups",
    });
  }
  if (!isLoopbackHost(http.host) && !http.token) {
    risks.push({
      detail: `http.host is ${http.host} without http.token: WebChat and the API are open to the network`,
      fix: "set http.token (SWITCHBOARD_TOKEN), or bind http.host to 127.0.0.1",
    });
  }
  if (!isLoopbackHost(http.host) && access.web.users === "owner") {
    risks.push({
      detail: "access.web.users is owner and WebChat is reachable beyond this machine: whoever has the HTTP token has every permission",
      fix: "set access.web.users to member, or keep http.host on loopback",
    });
  }
  return risks;
}
