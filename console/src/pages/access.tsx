/** Access: pending pairing requests (approve, deny), paired members, and the configured lists. */
import { api } from "../api";
import type { PageProps } from "../main";
import { t, when } from "../i18n";
import { useAction, useData } from "../use-data";

interface AccessView {
  pending: Array<{ channel: string; userId: string; chatId: string; name?: string; code: string; requestedAt: number }>;
  members: Array<{ channel: string; userId: string; name?: string; approvedAt: number; approvedBy: string }>;
  lists: { owners: string[]; allowFrom: string[]; dmPolicy: string; groupPolicy: string };
}

export function AccessPage({ onAuth }: PageProps) {
  const view = useData<AccessView>("/access", onAuth, 5000);
  const action = useAction(onAuth);
  const approve = (channel: string, code: string) => action.run(() => api.post("/access/pairing/approve", { channel, code }), view.reload);
  const deny = (channel: string, userId: string) => action.run(() => api.post("/access/pairing/deny", { channel, userId }), view.reload);
  const data = view.data;
  return (
    <section>
      <h2>{t("access.title")}</h2>
      {(view.error ?? action.error) && <p class="error">{view.error ?? action.error}</p>}
      <h3>{t("access.pending")}</h3>
      {data?.pending.length === 0 && <p>{t("access.noPending")}</p>}
      <table>
        <tbody>
          {data?.pending.map((p) => (
            <tr data-pairing={`${p.channel}:${p.userId}`}>
              <td>{p.channel}</td><td>{p.name ?? p.userId}</td><td><code>{p.code}</code></td><td>{when(p.requestedAt)}</td>
              <td class="actions">
                <button onClick={() => approve(p.channel, p.code)}>{t("access.approve")}</button>
                <button onClick={() => deny(p.channel, p.userId)}>{t("access.deny")}</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>{t("access.members")}</h3>
      {data?.members.length === 0 && <p>{t("access.noMembers")}</p>}
      <table>
        <tbody>
          {data?.members.map((m) => (
            <tr data-member={`${m.channel}:${m.userId}`}>
              <td>{m.channel}</td><td>{m.name ?? m.userId}</td><td>{when(m.approvedAt)}</td><td>{t("access.approvedBy", { name: m.approvedBy })}</td>
              <td class="actions"><button onClick={() => deny(m.channel, m.userId)}>{t("access.revoke")}</button></td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && (
        <>
          <h3>{t("access.lists")}</h3>
          <p>{t("access.policies", { dm: data.lists.dmPolicy, groups: data.lists.groupPolicy })}</p>
          <p>{t("access.owners", { list: data.lists.owners.join(", ") || t("access.none") })}</p>
          <p>{t("access.allowed", { list: data.lists.allowFrom.join(", ") || t("access.none") })}</p>
        </>
      )}
    </section>
  );
}
