/** `switchboard receipts [--chat ID] [--limit N] [--json]`: what deliver_artifacts sent, skipped or lost. */
import { InvalidArgumentError, type Command } from "commander";
import type { Store } from "../infra/store/types.js";
import { ReceiptLedger, type LedgerEntry } from "./receipts.js";

export interface ReceiptsCliDeps {
  /** Opens the store the gateway uses; called when the command runs, after global options are parsed. */
  openStore(): Promise<Store>;
  /** Where the command prints; standard output by default. */
  out?: (line: string) => void;
}

export function registerReceiptsCommands(program: Command, deps: ReceiptsCliDeps): void {
  const out = deps.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  program
    .command("receipts")
    .description("list delivery receipts of files sent to chats, newest first")
    .option("--chat <id>", 'only this chat: "channel:chatId", or a chat id on any channel')
    .option("--limit <n>", "how many receipts (1-1000)", parseLimit, 50)
    .option("--json", "print JSON lines instead of text")
    .action(async (opts: { chat?: string; limit: number; json?: boolean }) => {
      const store = await deps.openStore();
      try {
        const receipts = await new ReceiptLedger(store).list({ limit: opts.limit, ...(opts.chat !== undefined ? { chat: opts.chat } : {}) });
        if (receipts.length === 0) out(opts.chat !== undefined ? `No receipts for chat ${opts.chat}.` : "No receipts yet.");
        for (const receipt of receipts) out(opts.json ? JSON.stringify(receipt) : describeReceipt(receipt));
      } finally {
        await store.close();
      }
    });
}

/** One line: when, where, what, and how it ended. */
export function describeReceipt(r: LedgerEntry): string {
  const ending =
    r.status === "delivered"
      ? `delivered as message ${r.message_id}${r.sent_as !== undefined ? ` (as ${r.sent_as})` : ""}`
      : `${r.status} (${r.error_code}): ${r.error}`;
  const size = r.size !== null ? `, ${r.size} bytes` : "";
  const hash = r.sha256 !== null ? `, sha256 ${r.sha256.slice(0, 12)}` : "";
  const warnings = r.warnings?.length ? ` [${r.warnings.join("; ")}]` : "";
  return `${r.recorded_at} ${r.channel}:${r.chat_id} #${r.index} ${r.type} ${JSON.stringify(r.name)}${size}${hash}: ${ending}${warnings}`;
}

function parseLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new InvalidArgumentError("expected a whole number from 1 to 1000");
  return n;
}
