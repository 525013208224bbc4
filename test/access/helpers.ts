/** Builders shared by the access tests: inbound messages, access configs, and a fresh SQLite store. */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { pino } from "pino";
import { registerPairingCommands } from "../../src/access/cli.js";
import { accessConfigSchema, type AccessConfig } from "../../src/access/config.js";
import type { ChatRef, InboundMessage, SenderRef } from "../../src/core/types.js";
import { createStore, type Store } from "../../src/infra/store/index.js";
import { offeredToolNamesOf, type FakeRequest } from "../fakes/openai-server.js";
import { CHANNEL_NAMES } from "../helpers/channel-names.js";

export interface MessageShape extends Partial<Omit<InboundMessage, "chat" | "sender">> {
  chat?: Partial<ChatRef>;
  sender?: Partial<SenderRef>;
}

/** A Telegram direct message from user 42 unless overridden. */
export function message(shape: MessageShape = {}): InboundMessage {
  const { chat, sender, ...rest } = shape;
  const channel = rest.channel ?? "telegram";
  const platformMessageId = randomUUID();
  return {
    id: `${channel}:${platformMessageId}`,
    platformMessageId,
    channel,
    chat: { id: "42", type: "direct", ...chat },
    sender: { id: "42", name: "Ann", ...sender },
    text: "hello",
    attachments: [],
    mentionsBot: false,
    receivedAt: new Date(),
    ...rest,
  };
}

export function accessConfig(input: unknown = {}): AccessConfig {
  return accessConfigSchema.parse(input);
}

export interface TestStore {
  store: Store;
  /** The data directory, for a second connection to the same SQLite file. */
  dataDir: string;
  close(): Promise<void>;
}

/** A store in a fresh directory: SQLite, or Redis (under a unique key prefix) when `url` is a redis:// URL. */
export async function openTestStore(url: string | null = null): Promise<TestStore> {
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-access-"));
  const store = await createStore({ url, dataDir, log: pino({ level: "silent" }), keyPrefix: `test-${randomUUID()}:` });
  return {
    store,
    dataDir,
    async close() {
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs `switchboard pairing ...` on the SQLite store in `dataDir`, as a second process would; returns its output. */
export async function pairingCli(dataDir: string, ...args: string[]): Promise<string> {
  const lines: string[] = [];
  const program = new Command().exitOverride();
  registerPairingCommands(program, {
    channels: CHANNEL_NAMES,
    openStore: () => createStore({ url: null, dataDir, log: pino({ level: "silent" }) }),
    out: (line) => lines.push(line),
  });
  await program.parseAsync(["node", "switchboard", "pairing", ...args]);
  return lines.join("\n");
}

/** The pairing code in a bot's reply. */
export function pairingCodeIn(text: string | undefined): string {
  const code = /pairing code is ([A-Z2-9]{8})/.exec(text ?? "")?.[1];
  if (!code) throw new Error(`no pairing code in ${JSON.stringify(text)}`);
  return code;
}

/** The names of the tools a request the fake LLM received offered: every tool the sender may use. */
export function catalogOf(request: FakeRequest): string[] {
  return offeredToolNamesOf(request);
}
