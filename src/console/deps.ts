/** What the console sees of the running gateway; the app hands these in, the console holds no state of its own. */
import type { PairingBook } from "../access/pairing.js";
import type { ModelState } from "../agent/model-health.js";
import type { AccessConfig } from "../access/config.js";
import type { HttpServer } from "../infra/http/server.js";
import type { LogTail } from "../infra/log-tail.js";
import type { SessionDirectory } from "../sessions/directory.js";
import type { SessionHistory } from "../sessions/history.js";
import type { Hono } from "hono";

export interface ChannelView {
  name: string;
  connected: boolean;
  detail?: string;
}

/** This replica and the live ones sharing its store, with the connection leases each holds. */
export interface ReplicasView {
  id: string;
  leases: string[];
  live: Array<{ id: string; startedAt: string; leases: string[] }>;
}

export interface ConsoleDeps {
  http: HttpServer;
  token: string | null;
  /** The configuration in force; redacted before it is shown. */
  config: unknown;
  secrets: readonly string[];
  channels: () => ChannelView[];
  replicas: () => Promise<ReplicasView>;
  /** Each model entry's state (ready, cooling down, credentials refused); empty without a model. */
  models: () => ModelState[];
  sessions: SessionDirectory;
  history: SessionHistory;
  resetSession: (sessionKey: string) => Promise<void>;
  pairing: PairingBook;
  access: AccessConfig;
  /** null when the logger was built elsewhere (tests pass their own). */
  logTail: LogTail | null;
  /** The features' routes, mounted at /api/v1/console/<path> (tasks, skills, receipts, mcp, ...). */
  featureRoutes: Readonly<Record<string, Hono>>;
}
