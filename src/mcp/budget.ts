/**
 * What full exposure costs: the tokens of the "MCP Servers" section, counted with a real tokenizer (o200k_base,
 * the encoding of current OpenAI models; other models' counts are close). Over the budget the gateway warns; it
 * never cuts tools out of the prompt, since the model could not call what it does not see.
 */

import type * as GptTokenizer from "gpt-tokenizer";

// The tokenizer's tables take about a second to load: only when a section is counted, once.
let tokenizer: Promise<typeof GptTokenizer> | undefined;

export async function sectionTokens(section: string | undefined): Promise<number> {
  if (!section) return 0;
  tokenizer ??= import("gpt-tokenizer");
  return (await tokenizer).countTokens(section);
}

/** The warning to print when the section is over budget; undefined when it fits. */
export function budgetWarning(tokens: number, budget: number): string | undefined {
  if (tokens <= budget) return undefined;
  return (
    `the MCP Servers section of the system prompt takes ${tokens} tokens, over mcp.promptTokenBudget (${budget}); ` +
    "every tool is still shown in full: disable servers you do not need, or raise the budget"
  );
}
