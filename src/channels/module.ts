/**
 * What every channel folder exports: how to build its Channel from the configuration, and the live credential
 * check `switchboard doctor` runs. src/channels/modules.ts lists them; the gateway and doctor know no platform.
 */
import type { Config } from "../infra/config/schema.js";
import type { HttpServer } from "../infra/http/server.js";
import type { Logger } from "../infra/log.js";
import type { Store } from "../infra/store/types.js";
import type { Channel, ChannelName } from "../core/types.js";

export interface ChannelDeps {
  config: Config;
  store: Store;
  log: Logger;
  /** The gateway's one HTTP server, for webhook routes; add routes in start(), before the server listens. */
  http: HttpServer;
}

export interface ChannelModule {
  name: ChannelName;
  create(deps: ChannelDeps): Channel;
  /** A live call with the configured credentials: resolves with what it found, rejects saying what failed. */
  check(config: Config): Promise<string>;
  /** What to do when the check fails. */
  fix: string;
}

/** fetch with a deadline, answering the parsed JSON body or throwing with the HTTP status and host. */
export async function fetchJson(url: string, init: RequestInit = {}, timeoutMs = 15_000): Promise<unknown> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  const body = (await response.json().catch(() => null)) as unknown;
  if (!response.ok) throw new Error(`HTTP ${response.status} from ${new URL(url).host}`);
  return body;
}
