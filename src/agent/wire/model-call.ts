/**
 * What a model call hands the provider, as the AI SDK's middleware sees it; a wrapper that makes every call through
 * a function of the caller's; and the headers by which a call tells the provider's fetch something about itself
 * (which watched step, which history, which tool set), taken off there before the request leaves the process.
 */
import { wrapLanguageModel, type LanguageModelMiddleware } from "ai";

export type WrapGenerate = NonNullable<LanguageModelMiddleware["wrapGenerate"]>;
export type ModelV3 = Parameters<WrapGenerate>[0]["model"];
export type CallOptions = Parameters<WrapGenerate>[0]["params"];
export type PromptMessage = CallOptions["prompt"][number];

/** Makes a call (the wrapped model's doGenerate or doStream) with options of its own making. */
export type AroundCall = <R>(params: CallOptions, call: (params: CallOptions) => PromiseLike<R>) => Promise<R>;

/** `model` with each of its calls, generated or streamed, made through `around`. */
export function aroundCalls(model: ModelV3, around: AroundCall): ModelV3 {
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: "v3",
      wrapGenerate: ({ params, model: inner }) => around(params, (changed) => inner.doGenerate(changed)),
      wrapStream: ({ params, model: inner }) => around(params, (changed) => inner.doStream(changed)),
    },
  });
}

/** The request's headers without the header `name`, and its value; the AI SDK passes a plain object. */
export function takeHeader(headers: RequestInit["headers"], name: string): { value: string | undefined; headers: RequestInit["headers"] } {
  if (headers === undefined || headers instanceof Headers || Array.isArray(headers)) {
    const copy = new Headers(headers);
    const value = copy.get(name) ?? undefined;
    copy.delete(name);
    return { value, headers: value === undefined ? headers : copy };
  }
  const { [name]: value, ...rest } = headers as Record<string, string>;
  return { value, headers: value === undefined ? headers : rest };
}
