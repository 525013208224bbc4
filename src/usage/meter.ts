/**
 * The usage port (core/usage-port.ts) over the ledger: before each model call the budgets that apply to its owner
 * are checked and an estimate of the call is reserved on them, in one bounded tally addition, so replicas racing for
 * the last of a budget cannot both pass; after the call the reservation is replaced by what the call used, with
 * the day's breakdown, in one addition. A call with no budget to check reserves nothing and costs one write. An
 * image request is the same, priced per picture and held to the cost limits only (it uses no tokens); being priced
 * exactly, all the pictures it asks for must fit under each limit, where a model call needs only some budget left.
 */
import {
  BudgetRefusal,
  ImageBudgetRefusal,
  type ImageCall,
  type ImageCallPermit,
  type ModelCall,
  type ModelCallPermit,
  type ModelUsage,
  type UsageOwner,
  type UsagePort,
} from "../core/usage-port.js";
import type { Clock } from "../core/clock.js";
import type { Speech } from "../core/i18n.js";
import { ENGLISH } from "../infra/i18n/index.js";
import type { Coordinator, Tallies, TallyBound, TallyChange } from "../infra/store/types.js";
import { llmCost, llmTokens } from "../infra/metrics.js";
import type { BudgetsConfig, Limit, ScopeBudget } from "./config.js";
import { breakdownChange, NO_AMOUNTS, SCOPES, scopeKey, scopeTtl, type AppliedLimit, type Scope } from "./ledger.js";
import type { Period, PeriodName, Periods } from "./periods.js";
import { costOf, type PriceOf } from "./prices.js";
import { imageRoomText, refusalText, warningText } from "./texts.js";

/** Output reserved for a call that set no limit on it. */
const DEFAULT_OUTPUT_RESERVE = 1_000;
/**
 * Rounding forgiven where sums of decimal prices meet a limit: 0.04 × 25 is 1.0000000000000002 and fits in 1;
 * 0.08 spent of 0.10 is 80 %, where 0.8 × 0.1 is 0.08000000000000002.
 */
const COST_SLACK = 1e-9;
/** Warning markers this process already set (or found set), so a call past the level asks the store once. */
const WARNED_KEPT = 10_000;

export interface MeterDeps {
  config: BudgetsConfig;
  tallies: Tallies;
  coordinator: Coordinator;
  periods: Periods;
  clock: Clock;
  priceOf: PriceOf;
  isOwner: (channel: string, userId: string) => boolean;
}

export class UsageMeter implements UsagePort {
  readonly #warned = new Set<string>();

  constructor(private readonly deps: MeterDeps) {}

  async refusal(owner: UsageOwner, speech: Speech = ENGLISH): Promise<string | undefined> {
    const limits = this.limitsOf(owner, this.deps.periods.at(this.deps.clock.now()));
    if (limits.length === 0) return undefined;
    const sums = await this.deps.tallies.read(limits.map((applied) => applied.key));
    const spent = limits.findIndex((applied, i) => (sums[i]![applied.field] ?? 0) >= applied.limit);
    return spent === -1 ? undefined : refusalText(limits[spent]!, sums[spent]![limits[spent]!.field] ?? 0, this.deps.periods, speech);
  }

  async admit(call: ModelCall): Promise<ModelCallPermit> {
    const now = this.deps.clock.now();
    const periods = this.deps.periods.at(now);
    const limits = this.limitsOf(call.owner, periods);
    const keys = this.scopeChanges(call.owner, periods, now);
    const prices = this.deps.priceOf(call.model);
    let reserved = { tokens: 0, cost: 0 };
    let notice: string | undefined;
    if (limits.length > 0) {
      const input = call.estimateInput();
      const output = call.maxOutputTokens ?? DEFAULT_OUTPUT_RESERVE;
      reserved = { tokens: input + output, cost: costOf({ inputTokens: input, cachedInputTokens: 0, outputTokens: output }, prices) };
      const bounds: TallyBound[] = limits.map(({ key, field, limit }) => ({ key, field, limit }));
      const { added, sums } = await this.deps.tallies.addWithin(
        keys.map((change) => ({ ...change, amounts: reserved })),
        bounds,
      );
      if (!added) {
        const spent = limits.findIndex((applied, i) => sums[i]! >= applied.limit);
        throw new BudgetRefusal(refusalText(limits[spent]!, sums[spent]!, this.deps.periods, call.speech ?? ENGLISH));
      }
      // What was spent before this call (its own reservation aside, a guess): the warning comes with the call after
      // the level was passed, not with a reservation that only might pass it.
      notice = await this.warning(call.owner, call.speech, limits, sums.map((sum, i) => sum - reserved[limits[i]!.field]));
    }
    return {
      notice,
      settle: async (usage) => {
        await this.deps.tallies.add(this.settlement(call, usage, { keys, reserved, day: periods.daily, now }));
        if (usage) countMetrics(call, usage, costOf(usage, this.deps.priceOf(usage.model ?? call.model)));
      },
    };
  }

  async admitImages(call: ImageCall): Promise<ImageCallPermit> {
    const now = this.deps.clock.now();
    const periods = this.deps.periods.at(now);
    const limits = this.limitsOf(call.owner, periods).filter((applied) => applied.field === "cost");
    const keys = this.scopeChanges(call.owner, periods, now);
    const reserved = limits.length > 0 ? call.count * call.pricePerImage : 0;
    if (limits.length > 0) {
      // Every picture asked for must fit, not only the first: each bound is its limit less the reservation (a spent
      // limit still refuses free pictures).
      const bounds: TallyBound[] = limits.map(({ key, field, limit }) => ({ key, field, limit: limit - Math.max(0, reserved - COST_SLACK) }));
      const { added, sums } = await this.deps.tallies.addWithin(
        keys.map((change) => ({ ...change, amounts: { cost: reserved } })),
        bounds,
      );
      if (!added) throw this.imageRefusal(call, limits, sums);
    }
    return {
      settle: async (made) => {
        if (made === null) {
          if (reserved > 0) await this.deps.tallies.add(keys.map((change) => ({ ...change, amounts: { cost: -reserved } })));
          return undefined;
        }
        const cost = made * call.pricePerImage;
        const amounts = { cost: cost - reserved, images: made, imageCost: cost };
        const line = { ...NO_AMOUNTS, owner: call.owner, model: call.model, work: "image" as const, cost, images: made, imageCost: cost };
        const changes = [...keys.map((change) => ({ ...change, amounts })), breakdownChange(line, periods.daily, now)];
        let notice: string | undefined;
        if (limits.length === 0) await this.deps.tallies.add(changes);
        else {
          // Unbounded, so always added; it answers each limit's sum after the pictures, whose price is exact: the
          // request that takes the person past the warning level is the one that warns.
          const { sums } = await this.deps.tallies.addWithin(
            changes,
            limits.map(({ key, field }) => ({ key, field, limit: Number.POSITIVE_INFINITY })),
          );
          notice = await this.warning(call.owner, call.speech, limits, sums);
        }
        if (cost > 0) llmCost.inc({ model: call.model }, cost);
        return notice;
      },
    };
  }

  /** Why the pictures asked for do not fit, told by the limit that leaves room for the fewest, and how many would. */
  private imageRefusal(call: ImageCall, limits: readonly AppliedLimit[], sums: readonly number[]): ImageBudgetRefusal {
    const fits = limits.map((applied, i) => picturesWithin(applied.limit - sums[i]!, call.pricePerImage));
    const tightest = fits.indexOf(Math.min(...fits));
    const applied = limits[tightest]!;
    const used = sums[tightest]!;
    // In English: the image tool hands it to the model as its error.
    const text = used >= applied.limit ? refusalText(applied, used, this.deps.periods, ENGLISH) : imageRoomText(applied, used, call.pricePerImage, this.deps.periods);
    return new ImageBudgetRefusal(text, fits[tightest]!);
  }

  /** The limits that hold for this owner now, each with its tally's key; none for an exempt owner. */
  limitsOf(owner: UsageOwner, periods: Record<PeriodName, Period>): AppliedLimit[] {
    const { config } = this.deps;
    if (config.exemptOwners && this.deps.isOwner(owner.channel, owner.userId)) return [];
    const budgets: Record<Scope, ScopeBudget> = {
      user: { ...config.perUser, ...config.overrides[`${owner.channel}:${owner.userId}`] },
      chat: { ...config.perChat, ...config.overrides[`${owner.channel}:${owner.chatId}`] },
      global: config.global,
    };
    const limits: AppliedLimit[] = [];
    for (const scope of SCOPES) {
      for (const period of [periods.daily, periods.monthly]) {
        const limit: Limit | undefined = budgets[scope][period.name];
        for (const field of ["tokens", "cost"] as const) {
          const value = limit?.[field];
          if (value !== undefined) limits.push({ scope, period, field, limit: value, key: scopeKey(scope, owner, period) });
        }
      }
    }
    return limits;
  }

  /** The scope tallies a call of this owner adds to, each with its TTL. */
  private scopeChanges(owner: UsageOwner, periods: Record<PeriodName, Period>, now: number): Array<Omit<TallyChange, "amounts">> {
    return SCOPES.flatMap((scope) => [periods.daily, periods.monthly].map((period) => ({ key: scopeKey(scope, owner, period), ttlMs: scopeTtl(period, now) })));
  }

  private settlement(
    call: ModelCall,
    usage: ModelUsage | null,
    at: { keys: ReadonlyArray<Omit<TallyChange, "amounts">>; reserved: { tokens: number; cost: number }; day: Period; now: number },
  ): TallyChange[] {
    const { reserved } = at;
    if (!usage) return at.keys.map((change) => ({ ...change, amounts: { tokens: -reserved.tokens, cost: -reserved.cost } }));
    const model = usage.model ?? call.model;
    const cost = costOf(usage, this.deps.priceOf(model));
    const amounts = {
      tokens: usage.inputTokens + usage.outputTokens - reserved.tokens,
      cost: cost - reserved.cost,
      input: usage.inputTokens,
      cachedInput: usage.cachedInputTokens,
      output: usage.outputTokens,
      calls: 1,
      estimated: usage.estimated ? 1 : 0,
    };
    const line = { ...NO_AMOUNTS, owner: call.owner, model, work: call.work, input: usage.inputTokens, cachedInput: usage.cachedInputTokens, output: usage.outputTokens, cost, calls: 1 };
    return [...at.keys.map((change) => ({ ...change, amounts })), breakdownChange(line, at.day, at.now)];
  }

  /**
   * The first limit past its warning level (by `spent`) that the person was not yet told of this period; model calls
   * and pictures share the markers, so either warns once.
   */
  private async warning(owner: UsageOwner, speech: Speech | undefined, limits: readonly AppliedLimit[], spent: readonly number[]): Promise<string | undefined> {
    for (const [i, applied] of limits.entries()) {
      if (spent[i]! < this.deps.config.warnAt * applied.limit - COST_SLACK) continue;
      const marker = `budget-warned:${applied.key}:${applied.field}:${owner.channel}:${owner.userId}`;
      if (this.#warned.has(marker)) continue;
      if (this.#warned.size >= WARNED_KEPT) this.#warned.clear();
      this.#warned.add(marker);
      const ttlMs = Math.max(1, Math.ceil(applied.period.endsAt - this.deps.clock.now()));
      if (await this.deps.coordinator.setIfAbsent(marker, ttlMs)) return warningText(applied, spent[i]!, this.deps.periods, speech ?? ENGLISH);
    }
    return undefined;
  }
}

/** How many pictures at `price` fit in `room` (costs are sums of decimal prices, so a hair's rounding is forgiven). */
function picturesWithin(room: number, price: number): number {
  if (room <= 0) return 0;
  return price === 0 ? Number.POSITIVE_INFINITY : Math.floor((room + COST_SLACK) / price);
}

function countMetrics(call: ModelCall, usage: ModelUsage, cost: number): void {
  const model = usage.model ?? call.model;
  llmTokens.inc({ model, kind: call.work }, usage.inputTokens + usage.outputTokens);
  if (cost > 0) llmCost.inc({ model }, cost);
}
