/**
 * Days and months as budgets count them: in the gateway's zone (agent.timezone), by the injectable clock. A period's
 * key is its local date ("2026-11-28", "2026-11"); it ends at the next local midnight (of the month's first day).
 */
import { Cron } from "croner";

export type PeriodName = "daily" | "monthly";

export interface Period {
  name: PeriodName;
  /** "2026-11-28" or "2026-11". */
  key: string;
  /** When the next period starts (ms). */
  endsAt: number;
}

export class Periods {
  readonly #dateFormat: Intl.DateTimeFormat;
  readonly #nextDay: Cron;
  readonly #nextMonth: Cron;
  /** The periods last worked out, kept until the day ends (cron's next run is the costly part). */
  #current: { from: number; periods: Record<PeriodName, Period> } | undefined;

  constructor(readonly timeZone: string) {
    this.#dateFormat = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" });
    this.#nextDay = new Cron("0 0 0 * * *", { timezone: timeZone, paused: true });
    this.#nextMonth = new Cron("0 0 0 1 * *", { timezone: timeZone, paused: true });
  }

  /** The local date of `at`, "YYYY-MM-DD". */
  day(at: number): string {
    return this.#dateFormat.format(at);
  }

  at(now: number): Record<PeriodName, Period> {
    const current = this.#current;
    if (current && now >= current.from && now < current.periods.daily.endsAt) return current.periods;
    const periods = this.#compute(now);
    this.#current = { from: now, periods };
    return periods;
  }

  #compute(now: number): Record<PeriodName, Period> {
    const day = this.day(now);
    return {
      daily: { name: "daily", key: day, endsAt: this.#next(this.#nextDay, now) },
      monthly: { name: "monthly", key: day.slice(0, 7), endsAt: this.#next(this.#nextMonth, now) },
    };
  }

  #next(cron: Cron, now: number): number {
    return cron.nextRun(new Date(now))?.getTime() ?? Number.POSITIVE_INFINITY;
  }
}
