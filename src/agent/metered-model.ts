/**
 * Every model call through the usage port: a permit before the request (a spent budget throws BudgetRefusal and no
 * request is made), the provider's usage recorded after it, counted with the tokenizer when the provider sent none.
 */
import { wrapLanguageModel, type LanguageModel } from "ai";
import type { Speech } from "../core/i18n.js";
import { countTokens } from "../core/tokens.js";
import type { ModelUsage, ModelWork, UsageOwner, UsagePort } from "../core/usage-port.js";
import type { Logger } from "../infra/log.js";
import type { CallOptions, GenerateResult } from "./wire/index.js";
import { answeredBy, ModelChain } from "./model-chain.js";

export interface MeteredCalls {
  port: UsagePort;
  owner: UsageOwner;
  log: Logger;
  /** The language the port words its refusal and warning in. */
  speech?: Speech;
  /** Told a permit's warning (once per period per person, decided by the port). */
  onNotice(text: string): void;
}

/** `model` with each call admitted and recorded as `work`; the model as it is without a port. */
export function meteredModel(model: LanguageModel, work: ModelWork, calls: MeteredCalls | undefined): LanguageModel {
  if (!calls || typeof model === "string" || model.specificationVersion !== "v3") return model;
  const { port, owner, log, speech } = calls;
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: "v3",
      wrapGenerate: async ({ doGenerate, params, model: inner }) => {
        const permit = await port.admit({
          owner,
          work,
          // Admitted for the entry tried first; the one that answered is recorded (usageOf).
          model: inner instanceof ModelChain ? inner.links[0]!.entry.name : inner.modelId,
          estimateInput: () => roughPromptTokens(params.prompt),
          maxOutputTokens: params.maxOutputTokens,
          ...(speech ? { speech } : {}),
        });
        if (permit.notice !== undefined) calls.onNotice(permit.notice);
        const settle = (usage: ModelUsage | null) =>
          permit.settle(usage).catch((err: unknown) => log.error({ err, work, model: inner.modelId }, "recording a model call's usage failed"));
        let result: GenerateResult;
        try {
          result = await doGenerate();
        } catch (err) {
          await settle(null);
          throw err;
        }
        await settle(usageOf(result, params.prompt));
        return result;
      },
    },
  });
}

/**
 * The provider's counts, and the model entry that answered; when the provider sent no counts, the tokenizer's count
 * of the prompt's and the answer's text.
 */
export function usageOf(result: Pick<GenerateResult, "usage" | "content" | "providerMetadata">, prompt: CallOptions["prompt"]): ModelUsage {
  const { inputTokens, outputTokens } = result.usage;
  const entry = answeredBy(result.providerMetadata);
  const answered = entry !== undefined ? { model: entry } : {};
  if (inputTokens.total === undefined && outputTokens.total === undefined) {
    const answer = result.content.map((part) => (part.type === "text" || part.type === "reasoning" ? part.text : part.type === "tool-call" ? part.input : "")).join("\n");
    return { inputTokens: promptTokens(prompt), cachedInputTokens: 0, outputTokens: countTokens(answer), estimated: true, ...answered };
  }
  return {
    inputTokens: inputTokens.total ?? 0,
    cachedInputTokens: inputTokens.cacheRead ?? 0,
    outputTokens: outputTokens.total ?? 0,
    estimated: false,
    ...answered,
  };
}

/** What an image or file counts as: its bytes are not text, and providers charge them by size, not by length. */
const FILE_TOKENS = 1_000;

/** The prompt's text (and its tool traffic as JSON), counted by `count`. */
function promptTokens(prompt: CallOptions["prompt"], count: (text: string) => number = countTokens): number {
  let tokens = 0;
  for (const message of prompt) {
    if (typeof message.content === "string") {
      tokens += count(message.content);
      continue;
    }
    for (const part of message.content) {
      if (part.type === "file") tokens += FILE_TOKENS;
      else tokens += count(part.type === "text" || part.type === "reasoning" ? part.text : JSON.stringify(part));
    }
  }
  return tokens;
}

/**
 * A reservation's guess, a third of the prompt's UTF-8 bytes: no token is shorter than a byte, a CJK character is
 * three bytes and about a token, English about four bytes a token, so it errs high. The tokenizer cost a turn with
 * budgets more CPU than the rest of the accounting together.
 */
function roughPromptTokens(prompt: CallOptions["prompt"]): number {
  return promptTokens(prompt, (text) => Math.ceil(Buffer.byteLength(text) / 3));
}
