/**
 * Where usage is kept: store tallies (namespace "usage"), one per person, chat and the whole gateway for each day
 * and month (what budgets check and /usage shows), and one per day broken down by person, chat, model and kind of
 * work (what reports add up). A call's record is one atomic addition to all of them, so replicas lose nothing and a
 * restart keeps everything recorded; on SQLite, a process killed outright loses the records of its last second.
 */
import type { ModelWork, UsageAmounts, UsageOwner } from "../core/usage-port.js";
import type { Tallies, TallyChange } from "../infra/store/types.js";
import type { Period, PeriodName, Periods } from "./periods.js";

export type Scope = "user" | "chat" | "global";
export const SCOPES: readonly Scope[] = ["user", "chat", "global"];

/** One limit that applies to a call: its tally, the field it limits and where. */
export interface AppliedLimit {
  scope: Scope;
  period: Period;
  field: "tokens" | "cost";
  limit: number;
  key: string;
}

/** A scope tally's fields: `tokens` and `cost` include what calls in flight reserved; the others what calls used. */
export interface Totals {
  tokens: number;
  cost: number;
  input: number;
  cachedInput: number;
  output: number;
  calls: number;
  /** Calls whose tokens were counted with the tokenizer (the provider sent none). */
  estimated: number;
  /** Pictures the image tools made, and their part of `cost`. */
  images: number;
  imageCost: number;
}

export const EMPTY_TOTALS: Totals = { tokens: 0, cost: 0, input: 0, cachedInput: 0, output: 0, calls: 0, estimated: 0, images: 0, imageCost: 0 };


export const NO_AMOUNTS: UsageAmounts = { input: 0, cachedInput: 0, output: 0, cost: 0, calls: 0, images: 0, imageCost: 0 };
const BREAKDOWN_METRICS = Object.keys(NO_AMOUNTS) as Array<keyof UsageAmounts>;

const DAY_MS = 86_400_000;
/** Scope tallies outlive their period by a week: /usage and budgets only read the current one. */
const SCOPE_KEPT_MS = 7 * DAY_MS;
/** Day breakdowns are kept for reports this long after their day. */
const BREAKDOWN_KEPT_MS = 400 * DAY_MS;

export function scopeKey(scope: Scope, owner: UsageOwner, period: Pick<Period, "key">): string {
  if (scope === "user") return `user:${owner.channel}:${owner.userId}:${period.key}`;
  if (scope === "chat") return `chat:${owner.channel}:${owner.chatId}:${period.key}`;
  return `global:${period.key}`;
}

export function scopeTtl(period: Period, now: number): number {
  return Math.max(1, Math.ceil(period.endsAt - now + SCOPE_KEPT_MS));
}

/** One call's line in its day's breakdown: a model call (calls 1, its tokens) or an image request (its pictures). */
export interface UsageLine extends UsageAmounts {
  owner: UsageOwner;
  model: string;
  work: ModelWork;
}

export function breakdownChange(line: UsageLine, day: Period, now: number): TallyChange {
  const who = [`${line.owner.channel}:${line.owner.userId}`, `${line.owner.channel}:${line.owner.chatId}`, line.model, line.work].join("\t");
  const amounts: Record<string, number> = {};
  for (const metric of BREAKDOWN_METRICS) if (line[metric] !== 0) amounts[`${metric}\t${who}`] = line[metric];
  return { key: `day:${day.key}`, amounts, ttlMs: Math.max(1, Math.ceil(day.endsAt - now + BREAKDOWN_KEPT_MS)) };
}

export type ReportDimension = "user" | "chat" | "model" | "day" | "work";

export interface ReportRow extends UsageAmounts {
  /** The person, chat, model, day or kind of work. */
  name: string;
}

/** Reads what was recorded, for /usage, the CLI and the console. */
export class UsageReader {
  constructor(
    private readonly tallies: Tallies,
    private readonly periods: Periods,
  ) {}

  /** A scope's totals for today and this month. */
  async current(scope: Scope, owner: UsageOwner, now: number): Promise<Record<PeriodName, Totals>> {
    const { daily, monthly } = this.periods.at(now);
    const [day, month] = await this.tallies.read([scopeKey(scope, owner, daily), scopeKey(scope, owner, monthly)]);
    return { daily: { ...EMPTY_TOTALS, ...day }, monthly: { ...EMPTY_TOTALS, ...month } };
  }

  /** The local date this month started, "YYYY-MM-01". */
  monthStart(now: number): string {
    return `${this.periods.day(now).slice(0, 7)}-01`;
  }

  /** Every day from `since` (a local date) to `now`'s, added up by `by`, the largest cost (then tokens) first. */
  async report(by: ReportDimension, since: string, now: number): Promise<ReportRow[]> {
    const days = this.daysFrom(since, now);
    const sums = await this.tallies.read(days.map((day) => `day:${day}`));
    const rows = new Map<string, ReportRow>();
    sums.forEach((fields, i) => {
      for (const [field, amount] of Object.entries(fields)) {
        const [metric, user, chat, model, work] = field.split("\t") as [keyof UsageAmounts, string, string, string, string];
        const name = { user, chat, model, work, day: days[i]! }[by];
        let row = rows.get(name);
        if (!row) rows.set(name, (row = { name, ...NO_AMOUNTS }));
        row[metric] += amount;
      }
    });
    const ordered = [...rows.values()];
    return by === "day" ? ordered.sort((a, b) => a.name.localeCompare(b.name)) : ordered.sort((a, b) => b.cost - a.cost || b.input + b.output - (a.input + a.output));
  }

  /** The local dates from `since` through today, at most the breakdowns' retention. */
  private daysFrom(since: string, now: number): string[] {
    const today = this.periods.day(now);
    const days: string[] = [];
    // Noon UTC of each date steps through the calendar without landing on a zone's day boundary.
    for (let at = Date.parse(`${since}T12:00:00Z`); days.length <= BREAKDOWN_KEPT_MS / DAY_MS; at += DAY_MS) {
      const day = new Date(at).toISOString().slice(0, 10);
      if (day > today) break;
      days.push(day);
    }
    return days;
  }
}
