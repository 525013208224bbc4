/** What people are told about budgets and usage: the refusal, the warning, the /usage lines. */
import type { AppliedLimit, Totals } from "./ledger.js";
import type { Periods } from "./periods.js";

const SCOPE_WORDS = { user: "your", chat: "this chat's", global: "the bot's" } as const;
const PERIOD_WORDS = { daily: "daily", monthly: "monthly" } as const;

export function formatTokens(tokens: number): string {
  return Math.round(tokens).toLocaleString("en-US");
}

const COST_FORMAT = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 4, useGrouping: false });

/** Cents at least, and small sums to four places: "20.00", "0.012". */
export function formatCost(cost: number): string {
  return COST_FORMAT.format(cost);
}

function amount(applied: Pick<AppliedLimit, "field">, value: number): string {
  return applied.field === "tokens" ? `${formatTokens(value)} tokens` : `${formatCost(value)} in cost`;
}

/** "You have reached your daily budget of 200,000 tokens (used 201,345). It resets at 2026-11-29 00:00 (UTC)." */
export function refusalText(applied: AppliedLimit, used: number, periods: Periods): string {
  return (
    `You have reached ${SCOPE_WORDS[applied.scope]} ${PERIOD_WORDS[applied.period.name]} budget of ${amount(applied, applied.limit)} ` +
    `(used ${amount(applied, used)}), so I cannot answer until it resets at ${periods.describe(applied.period.endsAt)}.`
  );
}

export function warningText(applied: AppliedLimit, used: number, periods: Periods): string {
  const share = Math.min(100, Math.floor((used / applied.limit) * 100));
  return (
    `(Note: ${share}% of ${SCOPE_WORDS[applied.scope]} ${PERIOD_WORDS[applied.period.name]} budget of ${amount(applied, applied.limit)} is used; ` +
    `it resets at ${periods.describe(applied.period.endsAt)}.)`
  );
}

export function totalsLine(label: string, totals: Totals): string {
  const cached = totals.cachedInput > 0 ? ` (${formatTokens(totals.cachedInput)} cached)` : "";
  const estimated = totals.estimated > 0 ? `, ${totals.estimated} estimated` : "";
  return `${label}: ${formatTokens(totals.input)} input${cached} + ${formatTokens(totals.output)} output tokens, cost ${formatCost(totals.cost)}, ${totals.calls} model calls${estimated}${withImages(totals, "; ")}`;
}

/** "<separator>2 images (cost 0.08)" when the image tools made any (their cost is part of the total), else nothing. */
export function withImages(counted: Pick<Totals, "images" | "imageCost">, separator: string): string {
  if (counted.images === 0) return "";
  return `${separator}${counted.images} ${counted.images === 1 ? "image" : "images"} (cost ${formatCost(counted.imageCost)})`;
}
