/** Approvals: the tool calls waiting for a person (approve or deny them here) and the latest decisions. */
import { api } from "../api";
import type { PageProps } from "../main";
import { t, when } from "../i18n";
import { useAction, useData } from "../use-data";

interface Request {
  id: string;
  tool: string;
  shows: string;
  reason: string;
  channel: string;
  chatId: string;
  requester: { userId: string; name?: string };
  expiresAt: number;
  status: string;
  decidedBy?: string;
  decidedAt?: number;
}

export function ApprovalsPage({ onAuth }: PageProps) {
  const list = useData<{ pending: Request[]; decided: Request[] }>("/approvals", onAuth, 3000);
  const action = useAction(onAuth);
  const decide = (id: string, verb: "approve" | "deny") => action.run(() => api.post(`/approvals/${encodeURIComponent(id)}/${verb}`), list.reload);
  return (
    <section>
      <h2>{t("approvals.title")}</h2>
      {(list.error ?? action.error) && <p class="error">{list.error ?? action.error}</p>}
      {list.data?.pending.length === 0 && <p>{t("approvals.nothing")}</p>}
      <table>
        <thead><tr><th>{t("approvals.call")}</th><th>{t("approvals.why")}</th><th>{t("approvals.chat")}</th><th>{t("approvals.askedBy")}</th><th>{t("approvals.until")}</th><th /></tr></thead>
        <tbody>
          {list.data?.pending.map((r) => (
            <tr data-approval={r.id}>
              <td><pre>{r.shows}</pre></td>
              <td>{r.reason}</td>
              <td>{r.channel}:{r.chatId}</td>
              <td>{r.requester.name ?? r.requester.userId}</td>
              <td>{when(r.expiresAt)}</td>
              <td class="actions">
                <button onClick={() => decide(r.id, "approve")}>{t("approvals.approveOnce")}</button>
                <button onClick={() => decide(r.id, "deny")}>{t("approvals.deny")}</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>{t("approvals.decided")}</h3>
      <table>
        <tbody>
          {list.data?.decided.map((r) => (
            <tr><td>{r.tool}</td><td>{r.status}</td><td>{r.decidedBy ?? ""}</td><td>{when(r.decidedAt ?? null)}</td><td>{r.channel}:{r.chatId}</td></tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
