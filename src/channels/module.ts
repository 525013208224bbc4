/**
 * What every channel folder exports: everything the rest of the gateway needs to know about a platform. Its
 * settings section (schema, secrets, environment variables), whether those settings turn it on, how to build the
 * running Channel, and the live credential check `switchboard doctor` runs. src/channels/modules.ts lists the
 * modules; the config, the app and doctor know no platform by name.
 */
import type { z } from "zod";
import type { Clock } from "../core/clock.js";
import type { Speech } from "../core/i18n.js";
import type { Channel, ChannelName, InboundMessage } from "../core/types.js";
import type { CoreConfig, EnvOverride } from "../infra/config/core-schema.js";
import type { HttpServer } from "../infra/http/server.js";
import type { Logger } from "../infra/log.js";
import type { Store } from "../infra/store/types.js";

export interface ChannelDeps<S> {
  /** The channel's own `channels.<name>` section, parsed by its schema. */
  settings: S;
  core: CoreConfig;
  store: Store;
  log: Logger;
  /** The gateway's one HTTP server, for webhook routes; add routes in start(), before the server listens. */
  http: HttpServer;
  /** For the live reply's throttle; the real clock when absent. */
  clock?: Clock;
  /**
   * Whether a user of this channel (its platform id) is let in by name: an owner, in access.allowFrom, or paired.
   * For decisions the platform asks of the bot before any message, such as accepting an invitation to a room.
   */
  knownUser?: (userId: string) => Promise<boolean>;
  /**
   * The gateway's own words for a text the channel sends by itself: in the sender's language (their /language, else
   * their platform's locale, else i18n.default), or in i18n.default without a sender. English when absent.
   */
  speechOf?: (sender?: Pick<InboundMessage, "channel" | "sender" | "locale">) => Promise<Speech>;
}

/** A setting the channel cannot run without, and the environment variable that usually provides it. */
export interface Credential {
  /** Path inside the channel's section, e.g. "token". */
  field: string;
  env: string;
}

export interface ChannelModule<S = unknown, N extends ChannelName = ChannelName> {
  name: N;
  /** The `channels.<name>` section; every field has a default, so an absent section parses. */
  configSchema: z.ZodType<S, unknown>;
  /**
   * Required to run. With `enabled: null` the channel is on when all are set; with `enabled: true` a missing one
   * is a configuration error naming the variable.
   */
  credentials: readonly Credential[];
  /** Paths inside the section whose values are secrets (redacted everywhere). */
  secretPaths: readonly string[];
  /** Environment variables that set a path inside the section. */
  envOverrides: Readonly<Record<string, EnvOverride>>;
  // Method syntax on purpose: a module for specific settings stands where any module is expected.
  /** May load the platform's SDK first: a channel that is not configured never loads it. */
  create(deps: ChannelDeps<S>): Channel | Promise<Channel>;
  /** A live call with the configured credentials: resolves with what it found, rejects saying what failed. */
  check(settings: S, core: CoreConfig): Promise<string>;
  /** What to do when the check fails. */
  fix: string;
}

/** Types a module's settings from its schema, keeping its name and schema for the composed config type. */
export function defineChannel<S, N extends ChannelName, Z extends z.ZodType<S, unknown>>(
  module: ChannelModule<S, N> & { configSchema: Z },
): ChannelModule<unknown, N> & { configSchema: Z } {
  return module as ChannelModule<unknown, N> & { configSchema: Z };
}

/** fetch with a deadline, answering the parsed JSON body or throwing with the HTTP status and host. */
export async function fetchJson(url: string, init: RequestInit = {}, timeoutMs = 15_000): Promise<unknown> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  const body = (await response.json().catch(() => null)) as unknown;
  if (!response.ok) throw new Error(`HTTP ${response.status} from ${new URL(url).host}`);
  return body;
}
