/**
 * Failover between model entries, as one AI SDK language model: a call goes to the first entry that is not
 * cooling down; when it fails before any text reached the user with 429, 5xx, a timeout or a connection failure
 * the entry cools down (model-health.ts) and the call moves to the next; a context too long moves only to an entry
 * with a larger `contextWindow`; refused credentials (401/403) end the call, the entry marked for /status.
 *
 * Retries, the one policy: within one call each entry is tried at most once, in chain order, skipping those
 * cooling down. The AI SDK's own `maxRetries` (llm.maxRetries, with its backoff and Retry-After) repeats the whole
 * chain when the last failure is one it retries; by then the entries that failed are cooling down, so a repeat
 * tries the entry whose cooldown ends first, never all of them again. One call thus makes at most
 * (entries + maxRetries) requests, and with one entry the SDK's retries work as they always did.
 *
 * Each answer names the entry that gave it in its provider metadata (answeredBy), for accounting by model.
 */
import { AISDKError } from "ai";
import type { Logger } from "../infra/log.js";
import type { ModelEntry } from "../infra/config/model-entries.js";
import { failoverKind, type ModelHealth } from "./model-health.js";
import type { CallOptions, GenerateResult, ModelV3, StreamResult } from "./wire/index.js";

/** One entry of the chain: its settings and the provider's model made from them. */
export interface ChainLink {
  entry: ModelEntry;
  model: ModelV3;
}

const METADATA_KEY = "switchboard";

/** The name of the entry that answered, from a step's (or a result's) provider metadata. */
export function answeredBy(providerMetadata: Record<string, Record<string, unknown>> | undefined): string | undefined {
  const entry = providerMetadata?.[METADATA_KEY]?.modelEntry;
  return typeof entry === "string" ? entry : undefined;
}

const CUT_SHORT = "AI_AnswerCutShort";

/**
 * A streamed answer that broke off after some of its text was shown: neither another entry nor the AI SDK's
 * retry may answer it again (the user would read the start twice). Not an APICallError, so the SDK does not retry
 * it; the failure it wraps is its cause.
 */
export class AnswerCutShort extends AISDKError {
  constructor(cause: unknown) {
    const said = (cause as { message?: unknown } | null)?.message;
    super({ name: CUT_SHORT, message: `the answer broke off after part of it was shown: ${typeof said === "string" ? said : String(cause)}`, cause });
  }

  static isCutShort(err: unknown): err is AnswerCutShort {
    return AISDKError.isInstance(err) && err.name === CUT_SHORT;
  }
}

export class ModelChain implements ModelV3 {
  readonly specificationVersion = "v3";
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls: ModelV3["supportedUrls"];

  constructor(
    readonly links: readonly ChainLink[],
    readonly health: ModelHealth,
    /** Where a failover is noted; none in tools that only ask once (doctor). */
    private readonly log?: Logger,
  ) {
    const [first] = links;
    if (!first) throw new Error("a model chain needs at least one model entry");
    this.provider = first.model.provider;
    this.modelId = first.model.modelId;
    // URLs a provider fetches itself; with several providers the SDK downloads them, as any of them can take that.
    this.supportedUrls = links.length === 1 ? first.model.supportedUrls : {};
  }

  /** The same chain (and health) with each entry's model wrapped, e.g. to watch its steps. */
  map(wrap: (model: ModelV3, entry: ModelEntry) => ModelV3): ModelChain {
    return new ModelChain(
      this.links.map((link) => ({ entry: link.entry, model: wrap(link.model, link.entry) })),
      this.health,
      this.log,
    );
  }

  /** The same chain (and health) tried from the entry `name` on, then the others in order; undefined when none is that entry. */
  startingAt(name: string): ModelChain | undefined {
    const first = this.links.find((link) => link.entry.name === name);
    return first && new ModelChain([first, ...this.links.filter((link) => link !== first)], this.health, this.log);
  }

  async doGenerate(options: CallOptions): Promise<GenerateResult> {
    const { link, result } = await this.attempt(options, (model) => model.doGenerate(options));
    return { ...result, providerMetadata: { ...result.providerMetadata, [METADATA_KEY]: { modelEntry: link.entry.name } } };
  }

  /** Moves on only when the request itself fails; a stream that breaks later is the caller's to handle. */
  async doStream(options: CallOptions): Promise<StreamResult> {
    const { link, result } = await this.attempt(options, (model) => model.doStream(options));
    const named = new TransformStream<StreamPart, StreamPart>({
      transform(part, controller) {
        controller.enqueue(part.type === "finish" ? { ...part, providerMetadata: { ...part.providerMetadata, [METADATA_KEY]: { modelEntry: link.entry.name } } } : part);
      },
    });
    return { ...result, stream: result.stream.pipeThrough(named) };
  }

  private async attempt<R>(options: CallOptions, call: (model: ModelV3) => PromiseLike<R>): Promise<{ link: ChainLink; result: R }> {
    const tried = new Set<ChainLink>();
    let minWindow = 0;
    for (let link = this.pick(tried, minWindow); ; ) {
      tried.add(link);
      try {
        const result = await call(link.model);
        this.health.succeeded(link.entry.name);
        return { link, result };
      } catch (err) {
        // A cancelled turn is no failure of the model's.
        if (options.abortSignal?.aborted) throw err;
        const kind = AnswerCutShort.isCutShort(err) ? null : failoverKind(err);
        this.health.failed(link.entry.name, kind, err);
        if (kind === null || kind === "refused") throw err;
        if (kind === "context") minWindow = (link.entry.contextWindow ?? Infinity) + 1;
        const next = this.pick(tried, minWindow, false);
        if (!next) throw err;
        this.log?.warn({ model: link.entry.name, failure: kind, next: next.entry.name }, "model call failed; trying the next model");
        link = next;
      }
    }
  }

  /**
   * The first untried link with a window of at least `minWindow` that is not cooling down. When every one is
   * (and `orSoonest`, at the start of a call), the one whose cooldown ends first: the call is still made.
   */
  private pick(tried: Set<ChainLink>, minWindow: number, orSoonest?: true): ChainLink;
  private pick(tried: Set<ChainLink>, minWindow: number, orSoonest: false): ChainLink | undefined;
  private pick(tried: Set<ChainLink>, minWindow: number, orSoonest = true): ChainLink | undefined {
    const open = this.links.filter((link) => !tried.has(link) && (minWindow === 0 || (link.entry.contextWindow ?? 0) >= minWindow));
    const ready = open.find((link) => this.health.coolingFor(link.entry.name) === 0);
    if (ready || !orSoonest) return ready;
    return open.reduce((best, link) => (this.health.coolingFor(link.entry.name) < this.health.coolingFor(best.entry.name) ? link : best));
  }
}

type StreamPart = StreamResult["stream"] extends ReadableStream<infer P> ? P : never;
