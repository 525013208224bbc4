/**
 * The model an agent's `model` names: `null`, "primary" or the primary entry's name choose the gateway's chain as
 * it is; the name of another entry of the chain (llm.primary and llm.fallbacks) chooses the same chain tried from
 * that entry on, so the agent still fails over. Any other name is an error that says what exists.
 */
import { modelChain, primaryEntry, type LlmSettings } from "../infra/config/model-entries.js";

/** A model that can be tried from one of its entries on (the agent's ModelChain). */
export interface EntryOrdered<M> {
  startingAt(entryName: string): M | undefined;
}

export function resolveAgentModel<M extends EntryOrdered<M>>(name: string | null, primary: M, llm: LlmSettings): M {
  if (name === null || name === "primary" || name === primaryEntry(llm)?.name) return primary;
  const chosen = primary.startingAt(name);
  if (chosen) return chosen;
  throw new Error(`No model named "${name}" among the entries tried (llm.primary and llm.fallbacks); known: ${chainNames(llm)}`);
}

/** The loader's problem with an agent's model, or null. */
export function agentModelProblem(agentId: string, name: string | null, llm: LlmSettings): string | null {
  const names = new Set(modelChain(llm).map((entry) => entry.name));
  const byName = { startingAt: (entry: string) => (names.has(entry) ? byName : undefined) };
  try {
    resolveAgentModel(name, byName, llm);
    return null;
  } catch (err) {
    return `agents.${agentId}.model = "${name}": ${(err as Error).message}`;
  }
}

function chainNames(llm: LlmSettings): string {
  return modelChain(llm).map((entry) => entry.name).join(", ") || "none";
}
