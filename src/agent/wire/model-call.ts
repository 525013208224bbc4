/**
 * What a model call hands the provider, as the AI SDK's middleware sees it, and the header by which a call tells
 * the provider's fetch which watched step it is, taken off there before the request leaves the process.
 */
import type { LanguageModelMiddleware } from "ai";

export type WrapGenerate = NonNullable<LanguageModelMiddleware["wrapGenerate"]>;
export type ModelV3 = Parameters<WrapGenerate>[0]["model"];
export type CallOptions = Parameters<WrapGenerate>[0]["params"];
export type PromptMessage = CallOptions["prompt"][number];

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
