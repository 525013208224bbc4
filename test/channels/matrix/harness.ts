/** A real MatrixChannel over a real store, against the fake homeserver; restart() builds a new one on the same store. */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MatrixChannel } from "../../../src/channels/matrix/channel.js";
import { matrixConfigSchema, type MatrixSettings } from "../../../src/channels/matrix/config.js";
import type { HandleOutcome, InboundMessage } from "../../../src/core/types.js";
import { createStore, type Store } from "../../../src/infra/store/index.js";
import { startFakeMatrix, type FakeMatrix } from "../../fakes/matrix/index.js";
import { captureLog, type LogRecord } from "../../helpers/captured-log.js";
import { eventually } from "../../helpers/wait.js";

export const alice = { id: "@alice:fake.test", name: "Alice" };
export const bob = { id: "@bob:fake.test", name: "Bob" };

export const FAST_SYNC = { backoffBaseMs: 20, backoffMaxMs: 200 };

export function matrixSettings(fake: FakeMatrix, extra: Record<string, unknown> = {}): MatrixSettings {
  return matrixConfigSchema.parse({ homeserverUrl: fake.url, accessToken: fake.accessToken, syncTimeoutMs: 1_000, ...extra }) as MatrixSettings;
}

export interface MatrixHarness {
  fake: FakeMatrix;
  channel: MatrixChannel;
  store: Store;
  dataDir: string;
  logs: LogRecord[];
  received: InboundMessage[];
  /** What the handler answers (default "answered"). */
  outcome: HandleOutcome;
  /** Waits until the channel has synced (past the initial sync). */
  synced(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startMatrix(opts: { settings?: Record<string, unknown>; fake?: FakeMatrix; knownUser?: (id: string) => Promise<boolean> } = {}): Promise<MatrixHarness> {
  const fake = opts.fake ?? (await startFakeMatrix());
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-matrix-"));
  const { log, logs } = captureLog([]);
  const store = await createStore({ url: null, dataDir, log });
  const boot = async (): Promise<void> => {
    h.channel = new MatrixChannel({ settings: matrixSettings(fake, opts.settings), store, log, timing: FAST_SYNC, ...(opts.knownUser ? { knownUser: opts.knownUser } : {}) });
    await h.channel.start(async (m) => {
      h.received.push(m);
      return h.outcome;
    });
  };
  const h: MatrixHarness = {
    fake,
    channel: undefined as unknown as MatrixChannel,
    store,
    dataDir,
    logs,
    received: [],
    outcome: "answered",
    synced: async () => {
      const before = fake.syncs.length;
      await eventually(() => h.channel.status().connected && fake.syncs.length > before + 1, "a sync after the initial one");
    },
    restart: async () => {
      await h.channel.stop();
      await boot();
    },
    close: async () => {
      await h.channel.stop();
      await store.close();
      await fake.close();
    },
  };
  await boot();
  return h;
}
