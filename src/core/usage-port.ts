/**
 * What the agent (and a feature that calls a paid model, like the image tools) asks of usage accounting and budgets,
 * as a port: before each model call a permit (or a refusal, and then no request is made), after it the usage the
 * provider reported. The budgets feature implements it; the agent never imports it.
 */
import type { Speech } from "./i18n.js";

/** The kind of work a model call does. */
export type ModelWork = "chat" | "compaction" | "task" | "memory" | "image";

/**
 * What a day's breakdown keeps per person, chat, model and work, and what a report adds up: also what the console's
 * usage page reads of each total and row.
 */
export interface UsageAmounts {
  input: number;
  cachedInput: number;
  output: number;
  cost: number;
  calls: number;
  /** Pictures made, and their part of `cost`. */
  images: number;
  imageCost: number;
}

/** Whom a model call is counted to: the person (a task's creator) and the chat. */
export interface UsageOwner {
  channel: string;
  userId: string;
  chatId: string;
}

export interface ModelCall {
  owner: UsageOwner;
  work: ModelWork;
  /** The model's name as configured: what the call is attributed to and priced by. */
  model: string;
  /** Input tokens the request will take, roughly; asked only when a budget needs a reservation. */
  estimateInput(): number;
  /** The most output the request asked for, when it set a limit. */
  maxOutputTokens: number | undefined;
  /** The language of the person the refusal and the warning are for; English when absent. */
  speech?: Speech;
}

/** Tokens of one model call. `inputTokens` includes the cached ones. */
export interface ModelUsage {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  /** Counted with the tokenizer because the provider reported none. */
  estimated: boolean;
  /** The model that answered, when it is not the one the call was admitted for (a failover). */
  model?: string;
}

export interface ModelCallPermit {
  /** Records what the call used (null: it failed, and what it reserved is given back). */
  settle(usage: ModelUsage | null): Promise<void>;
  /** A warning for the person, given once per period, when this call took them past the warning level. */
  readonly notice: string | undefined;
}

/** A request to an image model, priced per picture rather than per token. */
export interface ImageCall {
  owner: UsageOwner;
  /** The image model's name, as configured (images.model). */
  model: string;
  /** How many pictures the request asks for: all of them must fit in the cost budgets, and are reserved there. */
  count: number;
  /** The price of one picture, in the currency of the budgets (images.pricePerImage). */
  pricePerImage: number;
  /** The language of the person the warning is for; English when absent (the refusal is the model's, in English). */
  speech?: Speech;
}

export interface ImageCallPermit {
  /**
   * Records how many pictures were made, giving back the reservation of those asked for and not made (null: the
   * request failed, and all of it is given back). Resolves with a warning for the person when the pictures took
   * them past a limit's warning level, once per period as for model calls.
   */
  settle(made: number | null): Promise<string | undefined>;
}

export interface UsagePort {
  /** Before a turn: the reply to send instead when the owner has no budget left (no model call is made), or undefined. */
  refusal(owner: UsageOwner, speech?: Speech): Promise<string | undefined>;
  /** Before each model call: its permit; throws a BudgetRefusal when a budget is spent. */
  admit(call: ModelCall): Promise<ModelCallPermit>;
  /** Before a request to an image model: its permit; throws an ImageBudgetRefusal when its pictures do not all fit. */
  admitImages(call: ImageCall): Promise<ImageCallPermit>;
}

/** A model call refused because a budget is spent: the message says which limit and when it resets. */
export class BudgetRefusal extends Error {
  override readonly name = "BudgetRefusal";
}

/** An image request refused because not all its pictures fit in a cost budget; `fits` says how many would (0: none). */
export class ImageBudgetRefusal extends BudgetRefusal {
  constructor(
    message: string,
    readonly fits: number,
  ) {
    super(message);
  }
}
