import { randomUUID } from "node:crypto";
import { Command } from "commander";
import { afterEach, describe, expect, it } from "vitest";
import { ReceiptLedger, type LedgerEntry } from "../../src/media/receipts.js";
import { registerReceiptsCommands } from "../../src/media/receipts-cli.js";
import { createStore } from "../../src/infra/store/index.js";
import { startImHarness, type ImHarness } from "./harness.js";

let h: ImHarness;
afterEach(async () => {
  await h.close();
});

function entry(overrides: Partial<LedgerEntry>): LedgerEntry {
  return {
    index: 0,
    type: "file",
    path: "a.txt",
    name: "a.txt",
    size: 3,
    sha256: "ab".repeat(32),
    mime: "text/plain",
    status: "delivered",
    error_code: null,
    error: null,
    channel: "telegram",
    chat_id: "chat-1",
    message_id: "m-1",
    delivered_at: "2026-03-04T05:06:01.000Z",
    dedupe_key: null,
    session_key: "telegram:chat-1",
    trace_id: "t",
    recorded_at: "2026-03-04T05:06:01.000Z",
    ...overrides,
  };
}

async function runCli(args: string[]): Promise<string[]> {
  const lines: string[] = [];
  const program = new Command().exitOverride();
  registerReceiptsCommands(program, {
    openStore: () => createStore({ url: null, dataDir: h.dir, log: h.context().log }),
    out: (line) => lines.push(line),
  });
  await program.parseAsync(["node", "switchboard", "receipts", ...args]);
  return lines;
}

describe("receipts ledger", () => {
  it("lists newest first, for one chat by channel:id or by bare id, within a limit", async () => {
    h = await startImHarness();
    await h.im.ledger.record([
      entry({ message_id: "m-1", recorded_at: "2026-03-04T05:00:00.000Z" }),
      entry({ chat_id: "other", message_id: "m-2", recorded_at: "2026-03-04T06:00:00.000Z" }),
    ]);
    await h.im.ledger.record([entry({ channel: "discord", message_id: "m-3", recorded_at: "2026-03-04T07:00:00.000Z" })]);

    expect((await h.im.ledger.list()).map((r) => r.message_id)).toEqual(["m-3", "m-2", "m-1"]);
    expect((await h.im.ledger.list({ chat: "telegram:chat-1" })).map((r) => r.message_id)).toEqual(["m-1"]);
    expect((await h.im.ledger.list({ chat: "chat-1" })).map((r) => r.message_id)).toEqual(["m-3", "m-1"]);
    expect((await h.im.ledger.list({ limit: 1 })).map((r) => r.message_id)).toEqual(["m-3"]);
    expect(await h.im.ledger.list({ chat: "nobody" })).toEqual([]);
  });

  it("loses no receipt when several deliveries record at once", async () => {
    h = await startImHarness();
    await Promise.all(Array.from({ length: 20 }, (_, i) => h.im.ledger.record([entry({ message_id: `m-${i}` })])));
    expect(await h.im.ledger.list({ chat: "telegram:chat-1" })).toHaveLength(20);
  });
});

describe.skipIf(!process.env.REDIS_URL)("receipts ledger on Redis", () => {
  it("loses no receipt when several replicas record at once", async () => {
    h = await startImHarness();
    const keyPrefix = `test-receipts-${randomUUID()}:`;
    const replicas = await Promise.all(
      [1, 2, 3].map(() => createStore({ url: process.env.REDIS_URL!, dataDir: h.dir, log: h.context().log, keyPrefix })),
    );
    try {
      const ledgers = replicas.map((store) => new ReceiptLedger(store));
      await Promise.all(Array.from({ length: 30 }, (_, i) => ledgers[i % 3]!.record([entry({ message_id: `m-${i}` })])));
      expect(await ledgers[0]!.list({ chat: "telegram:chat-1" })).toHaveLength(30);
    } finally {
      await Promise.all(replicas.map((store) => store.close()));
    }
  });
});

describe("switchboard receipts", () => {
  it("prints one line per receipt, filtered by --chat, or JSON lines", async () => {
    h = await startImHarness();
    await h.im.ledger.record([
      entry({ message_id: "m-1", name: "report.pdf", recorded_at: "2026-03-04T05:00:00.000Z" }),
      entry({
        index: 1,
        chat_id: "other",
        status: "failed",
        error_code: "too_large",
        error: "big.bin has 2000 bytes",
        message_id: null,
        recorded_at: "2026-03-04T06:00:00.000Z",
      }),
    ]);

    expect(await runCli([])).toEqual([
      '2026-03-04T06:00:00.000Z telegram:other #1 file "a.txt", 3 bytes, sha256 abababababab: failed (too_large): big.bin has 2000 bytes',
      '2026-03-04T05:00:00.000Z telegram:chat-1 #0 file "report.pdf", 3 bytes, sha256 abababababab: delivered as message m-1',
    ]);
    expect(await runCli(["--chat", "telegram:other"])).toHaveLength(1);
    expect(await runCli(["--chat", "nobody"])).toEqual(["No receipts for chat nobody."]);
    const [json] = await runCli(["--json", "--limit", "1"]);
    expect(JSON.parse(json!)).toMatchObject({ chat_id: "other", error_code: "too_large" });
    await expect(runCli(["--limit", "0"])).rejects.toThrow(/whole number from 1 to 1000/);
  });
});
