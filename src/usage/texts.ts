/** What people are told about budgets and usage, in their language: the refusal, the warning, the /usage lines. */
import type { Speech, Translate } from "../core/i18n.js";
import { ENGLISH } from "../infra/i18n/index.js";
import type { AppliedLimit, Totals } from "./ledger.js";
import type { Periods } from "./periods.js";

export function formatTokens(tokens: number): string {
  return Math.round(tokens).toLocaleString("en-US");
}

const COST_FORMAT = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 4, useGrouping: false });

/** Cents at least, and small sums to four places: "20.00", "0.012". */
export function formatCost(cost: number): string {
  return COST_FORMAT.format(cost);
}

function amount(applied: Pick<AppliedLimit, "field">, value: number, speech: Speech): string {
  return applied.field === "tokens" ? speech.t("budgets.tokens", { amount: formatTokens(value) }) : speech.t("budgets.cost", { amount: formatCost(value) });
}

/** Which budget, how much of it, and when it resets: what the refusal and the warning both say. */
function budgetValues(applied: AppliedLimit, periods: Periods, speech: Speech): Record<string, string> {
  return {
    scope: speech.t(`budgets.scope.${applied.scope}`),
    period: speech.t(`budgets.period.${applied.period.name}`),
    limit: amount(applied, applied.limit, speech),
    when: speech.time(applied.period.endsAt, periods.timeZone),
  };
}

/** "You have reached your daily budget of 200,000 tokens (used 201,345 tokens), so I cannot answer until it resets at ...". */
export function refusalText(applied: AppliedLimit, used: number, periods: Periods, speech: Speech): string {
  return speech.t("budgets.refusal", { ...budgetValues(applied, periods, speech), used: amount(applied, used, speech) });
}

/** For the model, in English: what is left of a cost budget too small for the pictures asked for. */
export function imageRoomText(applied: AppliedLimit, used: number, pricePerImage: number, periods: Periods): string {
  const { scope, period, limit, when } = budgetValues(applied, periods, ENGLISH);
  const left = amount(applied, Math.max(0, applied.limit - used), ENGLISH);
  return `Of ${scope} ${period} budget of ${limit}, ${left} is left until it resets at ${when}; a picture costs ${formatCost(pricePerImage)}.`;
}

export function warningText(applied: AppliedLimit, used: number, periods: Periods, speech: Speech): string {
  // 0.08 / 0.1 is 0.7999999999999999: a share a hair under a whole percent is that percent.
  const share = Math.min(100, Math.floor((used / applied.limit) * 100 + 1e-9));
  return speech.t("budgets.warning", { ...budgetValues(applied, periods, speech), share });
}

export function totalsLine(label: string, totals: Totals, speech: Speech): string {
  const { t } = speech;
  return t("usage.totals", {
    label,
    input: formatTokens(totals.input),
    cached: totals.cachedInput > 0 ? t("usage.cached", { tokens: formatTokens(totals.cachedInput) }) : "",
    output: formatTokens(totals.output),
    cost: formatCost(totals.cost),
    count: totals.calls,
    estimated: totals.estimated > 0 ? t("usage.estimated", { count: totals.estimated }) : "",
    images: withImages(totals, t("usage.imagesSeparator"), t),
  });
}

/** "<separator>2 images (cost 0.08)" when the image tools made any (their cost is part of the total), else nothing. */
export function withImages(counted: Pick<Totals, "images" | "imageCost">, separator: string, t: Translate = ENGLISH.t): string {
  if (counted.images === 0) return "";
  return `${separator}${t("usage.images", { count: counted.images, cost: formatCost(counted.imageCost) })}`;
}
