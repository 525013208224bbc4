/** `switchboard usage [--by user|chat|model|day|work] [--since YYYY-MM-DD]`: what the model calls used, from the store. */
import type { Command } from "commander";
import type { Tallies } from "../infra/store/types.js";
import { UsageReader, type ReportDimension } from "./ledger.js";
import { Periods } from "./periods.js";
import { formatCost, formatTokens, withImages } from "./texts.js";

export interface UsageCliDeps {
  setup(): Promise<{ tallies: Tallies; timeZone: string; close(): Promise<void> }>;
  now?: () => number;
  out?: (line: string) => void;
}

const DIMENSIONS: readonly ReportDimension[] = ["user", "chat", "model", "day", "work"];

export function registerUsageCommand(program: Command, deps: UsageCliDeps): void {
  const out = deps.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  program
    .command("usage")
    .description("tokens and cost of the model calls and the images made, added up by person, chat, model, day or kind of work")
    .option("--by <dimension>", `one of ${DIMENSIONS.join(", ")}`, "user")
    .option("--since <date>", "first day counted (YYYY-MM-DD, in agent.timezone); default the first of this month")
    .action(async (opts: { by: string; since?: string }) => {
      if (!DIMENSIONS.includes(opts.by as ReportDimension)) {
        out(`--by must be one of ${DIMENSIONS.join(", ")}, got "${opts.by}"`);
        process.exitCode = 1;
        return;
      }
      if (opts.since !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(opts.since)) {
        out(`--since must be a date as YYYY-MM-DD, got "${opts.since}"`);
        process.exitCode = 1;
        return;
      }
      const setup = await deps.setup();
      try {
        const now = deps.now?.() ?? Date.now();
        const reader = new UsageReader(setup.tallies, new Periods(setup.timeZone));
        const since = opts.since ?? reader.monthStart(now);
        const rows = await reader.report(opts.by as ReportDimension, since, now);
        out(`Model use since ${since} by ${opts.by}:`);
        if (rows.length === 0) out("(nothing recorded)");
        for (const row of rows) {
          out(`${row.name}\t${formatTokens(row.input)} input (${formatTokens(row.cachedInput)} cached)\t${formatTokens(row.output)} output\tcost ${formatCost(row.cost)}\t${row.calls} calls${withImages(row, "\t")}`);
        }
      } finally {
        await setup.close();
      }
    });
}
