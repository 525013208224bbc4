/** Small pieces of the composition root: the channels, access control, the sender's zone, /readyz lines. */
import { AccessControl } from "./access/access-control.js";
import { PairingBook } from "./access/pairing.js";
import type { Agent } from "./agent/agent.js";
import { channelSettings, enabledChannels, type ChannelModules, type Config } from "./config.js";
import type { Channel, ChannelName, InboundMessage } from "./core/types.js";
import type { Clock } from "./core/clock.js";
import type { Outbound } from "./core/outbound.js";
import type { Speech } from "./core/i18n.js";
import type { ButtonActions } from "./gateway/actions.js";
import { ownerPairingNotifier } from "./gateway/pairing-notice.js";
import type { ZonePreferences } from "./scheduler/zone-preferences.js";
import { redactText } from "./infra/config/secrets.js";
import type { ComponentStatus, HttpServer } from "./infra/http/server.js";
import { modelStateText } from "./agent/model-health.js";
import type { Logger } from "./infra/log.js";
import { createStore } from "./infra/store/index.js";
import { prepareSchema } from "./infra/store/schema.js";
import type { Store } from "./infra/store/types.js";

/** One Channel per enabled module, built from its own settings section. */
export async function createChannels(
  config: Config,
  modules: ChannelModules,
  deps: { store: Store; log: Logger; http: HttpServer; speechOf: (sender?: Pick<InboundMessage, "channel" | "sender" | "locale">) => Promise<Speech> },
): Promise<Map<ChannelName, Channel>> {
  const channels = new Map<ChannelName, Channel>();
  for (const module of enabledChannels(config, modules)) {
    const settings = channelSettings(config, module);
    const knownUser = knownUserOf(config, module.name, new PairingBook(deps.store, modules.map((m) => m.name)));
    channels.set(module.name, await module.create({ ...deps, settings, core: config, knownUser, log: deps.log.child({ channel: module.name }) }));
  }
  return channels;
}

/** Whether the access config names a user of `channel` (owner or allowFrom), or the user is paired. */
function knownUserOf(config: Config, channel: ChannelName, pairing: PairingBook): (userId: string) => Promise<boolean> {
  const named = new Set([...config.access.owners, ...config.access.allowFrom]);
  return async (userId) => named.has(`${channel}:${userId}`) || (await pairing.isApproved(channel, userId));
}

export function llmReadiness(problem: string | null, agent: Agent | null): ComponentStatus {
  if (problem || !agent) return { ok: false, detail: problem ?? "not configured" };
  const states = agent.modelStates();
  const parts = Object.fromEntries(states.map((state) => [state.name, modelStateText(state)]));
  const models = states.map((state) => `${state.name} ${state.state}`).join(", ");
  const last = agent.lastModelCall;
  if (!last) return { ok: true, detail: `${models}; not called yet`, parts };
  if (last.ok) return { ok: true, detail: `${models}; last call ok at ${last.at.toISOString()}`, parts };
  return { ok: false, detail: `${models}; last call failed at ${last.at.toISOString()} (error id ${last.errorId ?? "?"})`, parts };
}

/** The store's answer to /readyz; its error may quote the store URL, so the password is kept out. */
export async function storeStatus(store: Store, secrets: readonly string[]): Promise<ComponentStatus> {
  try {
    await store.ping();
    return { ok: true, detail: store.backend };
  } catch (err) {
    return { ok: false, detail: redactText(`${store.backend}: ${(err as Error).message}`, secrets) };
  }
}

/** The sender's time zone (set with /timezone), so "today" in the prompt is theirs. */
export function senderZone(zones: ZonePreferences): (message: InboundMessage) => Promise<string> {
  return async (message) => (await zones.resolve({ channel: message.channel, chatId: message.chat.id, userId: message.sender.id })).zone;
}

/** Access control, with the owners told of each pairing request in their private chats. */
export function createAccess(deps: {
  config: Config;
  store: Store;
  log: Logger;
  channelNames: readonly string[];
  channelOf: (name: ChannelName) => Channel | undefined;
  outbound: Outbound;
  actions: ButtonActions;
  speechOf: (owner: { channel: ChannelName; userId: string }) => Promise<Speech>;
}): AccessControl {
  const { config, store, log, channelOf, outbound, actions, speechOf } = deps;
  return new AccessControl({
    config: config.access,
    store,
    channels: deps.channelNames,
    webAuthenticated: config.http.token !== null,
    onPairingRequest: ownerPairingNotifier({ owners: config.access.owners, channelOf, outbound, actions, speechOf, log: log.child({ component: "pairing" }) }),
  });
}

/**
 * The gateway's store, its schema brought up to date (a newer store is refused), and a warning in the start-up log
 * when the backend's own settings may lose what the gateway keeps.
 */
export async function openGatewayStore(config: Config, log: Logger, clock?: Clock): Promise<Store> {
  const store = await createStore({ url: config.store.url, dataDir: config.dataDir, log, keyPrefix: config.store.keyPrefix, clock });
  try {
    await prepareSchema(store, log.child({ component: "store" }));
  } catch (err) {
    await store.close();
    throw err;
  }
  try {
    for (const warning of await store.durabilityWarnings()) log.warn({ component: "store" }, warning);
  } catch (err) {
    log.warn({ err, component: "store" }, "could not read the store's persistence settings");
  }
  return store;
}
