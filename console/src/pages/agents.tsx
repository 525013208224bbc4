/** Agents: the configured agents, and the routing rules that send chats to them (edited here, kept in the store). */
import { useState } from "preact/hooks";
import { api } from "../api";
import type { PageProps } from "../main";
import { t } from "../i18n";
import { useAction, useData } from "../use-data";

interface Agent {
  id: string;
  name: string;
  model: string | null;
  tools: string[] | null;
  memory: string;
  maxDelegationDepth: number;
}

const COLUMNS = ["id", "name", "model", "tools", "memory", "depth"] as const;

export function AgentsPage({ onAuth }: PageProps) {
  const list = useData<{ agents: Agent[]; routing: unknown[] }>("/agents", onAuth);
  const action = useAction(onAuth);
  const [draft, setDraft] = useState<string | null>(null);
  const [parseError, setParseError] = useState<string | null>(null);
  const shown = draft ?? JSON.stringify(list.data?.routing ?? [], null, 2);
  const saved = () => {
    setDraft(null);
    list.reload();
  };
  const save = () => {
    let rules: unknown;
    try {
      rules = JSON.parse(shown);
    } catch (err) {
      return setParseError(t("agents.notJson", { error: (err as Error).message }));
    }
    setParseError(null);
    action.run(() => api.put("/agents/routing", { rules }), saved);
  };
  return (
    <section>
      <h2>{t("agents.title")}</h2>
      {(list.error ?? action.error ?? parseError) && <p class="error">{list.error ?? action.error ?? parseError}</p>}
      <table>
        <thead><tr>{COLUMNS.map((c) => <th>{t(`agents.${c}`)}</th>)}</tr></thead>
        <tbody>
          {list.data?.agents.map((a) => (
            <tr data-agent={a.id}>
              <td>{a.id}</td><td>{a.name}</td><td>{a.model ?? t("agents.primaryModel")}</td><td>{a.tools?.join(", ") ?? t("agents.allTools")}</td><td>{a.memory}</td><td>{a.maxDelegationDepth}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>{t("agents.routing")}</h3>
      <p>{t("agents.routingHelp")} <code>{'{"match": {"channel": "telegram", "chat": "42"}, "agent": "support"}'}</code></p>
      <textarea rows={12} cols={80} value={shown} onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)} />
      <p class="actions">
        <button onClick={save}>{t("agents.save")}</button>
        <button onClick={() => action.run(() => api.put("/agents/routing", { rules: null }), saved)}>{t("agents.reset")}</button>
      </p>
    </section>
  );
}
