/**
 * The model an agent's `model` names. The primary model (llm.model) is the one entry known here: `null`,
 * "primary", "default" or its own name choose it; any other name is an error that says what exists.
 */
import type { CoreConfig } from "../infra/config/core-schema.js";

const PRIMARY_NAMES: ReadonlySet<string> = new Set(["primary", "default"]);

export function resolveAgentModel<M>(name: string | null, primary: M, llm: CoreConfig["llm"]): M {
  if (name === null || PRIMARY_NAMES.has(name) || name === llm.model) return primary;
  throw new Error(`No model named "${name}" in llm.models; known: primary${llm.model ? ` (${llm.model})` : ""}`);
}

/** The loader's problem with an agent's model, or null. */
export function agentModelProblem(agentId: string, name: string | null, llm: CoreConfig["llm"]): string | null {
  try {
    resolveAgentModel(name, true, llm);
    return null;
  } catch (err) {
    return `agents.${agentId}.model = "${name}": ${(err as Error).message}`;
  }
}
