/**
 * What every feature plugs in with, as a platform plugs in with a ChannelModule: its settings section, and what it
 * adds to a running gateway (tools, chat commands, HTTP and console routes, readiness and doctor checks, CLI
 * commands, what the agent's turn needs from it, start and stop). src/features/modules.ts lists the modules; the
 * app, the CLI, the config schema, doctor and the console iterate over that list and name no feature.
 *
 * A feature is an engine folder (src/scheduler/, src/mcp/, ...), the handler file of its tools (src/handlers/) and
 * its plug here (src/features/<name>.ts), which joins the two: an engine never sees the tool surface, so the layers
 * stay as they are, and the plug is the one place that knows both.
 */
import type { Command } from "commander";
import type { Hono } from "hono";
import type { z } from "zod";
import type { TurnHooks } from "../core/turn-hooks.js";
import type { ReplyHook, ReplyReplacement } from "../core/reply-hook.js";
import type { ChatCommand, CommandContext } from "../core/commands.js";
import type { Speech } from "../core/i18n.js";
import type { Outbound } from "../core/outbound.js";
import type { ButtonMessages } from "../core/button-messages.js";
import type { Clock } from "../core/clock.js";
import type { ToolHandlerSpec } from "../core/tools.js";
import type { TurnRunner } from "../core/turn.js";
import type { UsagePort } from "../core/usage-port.js";
import type { Channel, ChannelName } from "../core/types.js";
import type { CoreConfig, EnvOverride } from "../infra/config/core-schema.js";
import type { ComponentStatus, HttpServer } from "../infra/http/server.js";
import type { Logger } from "../infra/log.js";
import type { Store } from "../infra/store/types.js";
import type { Workspaces } from "../infra/workspace.js";
import type { Sandbox } from "../infra/sandbox/index.js";
import type { AccessControl } from "../access/access-control.js";
import type { HandlerRegistry } from "../handlers/registry.js";
import type { Deliverer } from "../media/deliver.js";
import type { Media } from "../media/index.js";
import type { ZonePreferences } from "../scheduler/zone-preferences.js";
import type { SessionDirectory } from "../sessions/directory.js";
import type { SessionHistory } from "../sessions/history.js";

/** The shared services every feature may use, built by the app before any feature. */
export interface FeatureServices {
  core: CoreConfig;
  /** The configured secret values, for redaction. */
  secrets: readonly string[];
  store: Store;
  log: Logger;
  http: HttpServer;
  workspaces: Workspaces;
  sandbox: Sandbox;
  /** Every reply, reminder and file goes out through here (the one retry policy). */
  outbound: Outbound;
  /** Messages with buttons someone is asked to press (or the typed forms where a channel has none). */
  buttons: ButtonMessages;
  /** What waits on time (an approval's timeout) waits on this; tests give a clock of their own. */
  clock: Clock;
  channelOf: (name: ChannelName) => Channel | undefined;
  /** The names of every channel module, enabled or not (for ids like `telegram:42`). */
  channelNames: readonly string[];
  /** The zones people and chats set with /timezone, with agent.timezone as the default. */
  zones: ZonePreferences;
  /** Who may talk to the bot and with which tools; part of the inbound pipeline. */
  access: AccessControl;
  isOwner: (ctx: CommandContext) => boolean;
  /**
   * A person's language for what reaches them outside an answer to their message (a reminder's notices): their
   * /language, else the tag their platform reported (`locale`, kept from an earlier message), else i18n.default.
   */
  speechOf: (person: { channel: ChannelName; userId: string; locale?: string | undefined }) => Promise<Speech>;
  /** The sessions and chats the gateway has heard from (the console's list; files go only to known chats). */
  directory: SessionDirectory;
  /** The sessions' transcripts (one cache for the agent, the tools and the console). */
  history: SessionHistory;
  /** For tools that come and go at run time (skills); a feature's fixed tools are its `handlers`. */
  registry: HandlerRegistry;
  /** Runs agent turns; null when no language model is configured. */
  turns: TurnRunner | null;
}

export interface FeatureDeps<S> extends FeatureServices {
  /** The feature's own section, parsed by its schema. */
  settings: S;
  /** The other sections the module `reads`, by name. */
  sections: Readonly<Record<string, unknown>>;
  /** What an earlier feature in the list returned from create() (undefined if not built): one feature's port to another's. */
  partsOf: (name: string) => FeatureParts | undefined;
}

/** A readiness component; `gates: false` shows it in /readyz without making the gateway unready. */
export interface ReadinessContribution {
  check: () => ComponentStatus | Promise<ComponentStatus>;
  gates?: boolean;
}

/** What a running feature adds to the gateway; every field is optional. */
export interface FeatureParts {
  /** Tool handlers, registered in order (seed 000's handler names). */
  handlers?: readonly ToolHandlerSpec[];
  commands?: readonly ChatCommand[];
  /** What the agent's turn asks of the feature (prompt sections, media, memory). */
  turn?: TurnHooks;
  /** Runs after each agent turn's text reply went out. */
  afterReply?: ReplyHook;
  /** Runs before it: may send the reply in another form instead of the text. */
  replyInstead?: ReplyReplacement;
  /** Components of /readyz, by name. */
  readiness?: Readonly<Record<string, ReadinessContribution>>;
  /** Routes of the owner's console, mounted at /api/v1/console/<path> behind its auth. */
  consoleRoutes?: Readonly<Record<string, Hono>>;
  /** After the channels are up; resolves when started (background work stays in the background). */
  start?(): Promise<void> | void;
  /** Given the shutdown grace period for work in flight. */
  stop?(graceMs: number): Promise<void> | void;
}

/** One line of `switchboard doctor`. */
export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
  /** What to do when it failed (or, for a warning, how to make it safe). */
  fix?: string;
  /** Works, but risky: shown as WARN, does not fail the run. */
  warning?: boolean;
}

/** What a feature's CLI commands get: the configuration and a quiet logger, made only when a command runs. */
export interface FeatureCliContext<S> {
  setup(): { settings: S; core: CoreConfig; secrets: readonly string[]; log: Logger };
  /** The names of every channel module (for ids like `telegram:42`); known before any configuration is read. */
  channelNames: readonly string[];
  /** The gateway's store, opened for a command that reads or changes what it keeps. */
  openStore(): Promise<Store>;
}

export interface FeatureModule<S = unknown, N extends string = string> {
  /** The feature's top-level config section. */
  name: N;
  /** Every field has a default, so an absent section parses. */
  configSchema: z.ZodType<S, unknown>;
  /** Other features' sections it needs (the browser obeys web.allowPrivate), handed over as `deps.sections`. */
  reads?: readonly string[];
  /** Paths inside the section whose values are secrets (redacted everywhere). */
  secretPaths?: readonly string[];
  /** Secret values that have no fixed path (an MCP server's env). */
  secretsOf?(settings: S): string[];
  /** Environment variables that set a path inside the section. */
  envOverrides?: Readonly<Record<string, EnvOverride>>;
  /** Problems that involve other settings, worded like the loader's ("path: problem"); `sections` as in FeatureDeps. */
  crossChecks?(settings: S, core: CoreConfig, sections: Readonly<Record<string, unknown>>): string[];
  // Method syntax on purpose: a module for specific settings stands where any module is expected.
  create?(deps: FeatureDeps<S>): FeatureParts | Promise<FeatureParts>;
  /** Its lines of `switchboard doctor`: live checks, warnings about risky settings. */
  doctor?(settings: S, core: CoreConfig, log: Logger): Promise<CheckResult[]>;
  /** Adds its `switchboard` subcommands. */
  cli?(program: Command, ctx: FeatureCliContext<S>): void;
}

/**
 * Types a module's settings from its schema, keeping its name and schema for the composed config type, and what
 * its create() returns, so that `Gateway.feature(module)` hands a test or a caller the feature's own objects.
 */
export function defineFeature<S, N extends string, Z extends z.ZodType<S, unknown>, P extends FeatureParts = FeatureParts>(
  module: FeatureModule<S, N> & { configSchema: Z; create?(deps: FeatureDeps<S>): P | Promise<P> },
): FeatureModule<unknown, N> & { configSchema: Z; create?(deps: FeatureDeps<unknown>): P | Promise<P> } {
  return module as FeatureModule<unknown, N> & { configSchema: Z; create?(deps: FeatureDeps<unknown>): P | Promise<P> };
}

/** The budgets feature's usage port, for features that call a paid model of their own (the image tools); undefined without it. */
export function usagePortOf(deps: Pick<FeatureDeps<unknown>, "partsOf">): UsagePort | undefined {
  return deps.partsOf("budgets")?.turn?.usage;
}

/** The media feature's deliverer (files out with receipts), for features that send what they make. */
export function mediaDelivererOf(deps: Pick<FeatureDeps<unknown>, "partsOf">): Deliverer | undefined {
  return (deps.partsOf("media") as { media?: Media } | undefined)?.media?.deliverer;
}
