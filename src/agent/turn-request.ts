/** The parts of a turn's model request that depend only on the provider and the turn: its system blocks and when its tool loop stops. */
import { stepCountIs, type StopCondition, type SystemModelMessage, type ToolSet } from "ai";
import type { TurnInput } from "../core/turn.js";
import type { CoreConfig } from "../infra/config/core-schema.js";
import { systemPromptText, type SystemPrompt } from "./prompt.js";

/**
 * For Anthropic, two system blocks, the stable one with a cache breakpoint: tools and the stable prompt are cached
 * together (a breakpoint covers everything before it). OpenAI-compatible servers get one system message (some chat
 * templates refuse a second); they cache its stable beginning by themselves.
 */
export function systemFor(provider: CoreConfig["llm"]["provider"], prompt: SystemPrompt): string | SystemModelMessage[] {
  if (provider !== "anthropic") return systemPromptText(prompt);
  const stable: SystemModelMessage = { role: "system", content: prompt.stable, providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } };
  return prompt.volatile === "" ? [stable] : [stable, { role: "system", content: prompt.volatile }];
}

/** A person's turn stops at the step limit; a helper's also after the step that reached its token budget. */
export function stopConditions(maxSteps: number, input: TurnInput): StopCondition<ToolSet> | Array<StopCondition<ToolSet>> {
  const { delegation } = input;
  if (!delegation) return stepCountIs(maxSteps);
  const tokensSpent: StopCondition<ToolSet> = ({ steps }) =>
    steps.reduce((sum, step) => sum + (step.usage.inputTokens ?? 0) + (step.usage.outputTokens ?? 0), 0) >= delegation.maxTokens;
  return [stepCountIs(delegation.maxSteps), tokensSpent];
}
