/**
 * What full exposure costs: the tokens of the "MCP Servers" section, counted with the tokenizer every budget uses
 * (core/tokens.ts). Over the budget the gateway warns; it never cuts tools out of the prompt, since the model could
 * not call what it does not see.
 */
import { countTokens } from "../core/tokens.js";

export function sectionTokens(section: string | undefined): number {
  return section ? countTokens(section) : 0;
}

/** The warning to print when the section is over budget; undefined when it fits. */
export function budgetWarning(tokens: number, budget: number): string | undefined {
  if (tokens <= budget) return undefined;
  return (
    `the MCP Servers section of the system prompt takes ${tokens} tokens, over mcp.promptTokenBudget (${budget}); ` +
    "every tool is still shown in full: disable servers you do not need, or raise the budget"
  );
}
