/** Access: pending pairing requests (approve, deny), paired members, and the configured lists. */
import { api } from "../api";
import type { PageProps } from "../main";
import { useAction, useData, when } from "../use-data";

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
      <h2>Access</h2>
      {(view.error ?? action.error) && <p class="error">{view.error ?? action.error}</p>}
      <h3>Pairing requests</h3>
      {data?.pending.length === 0 && <p>No pending requests.</p>}
      <table>
        <tbody>
          {data?.pending.map((p) => (
            <tr data-pairing={`${p.channel}:${p.userId}`}>
              <td>{p.channel}</td><td>{p.name ?? p.userId}</td><td><code>{p.code}</code></td><td>{when(p.requestedAt)}</td>
              <td class="actions">
                <button onClick={() => approve(p.channel, p.code)}>Approve</button>
                <button onClick={() => deny(p.channel, p.userId)}>Deny</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Paired members</h3>
      {data?.members.length === 0 && <p>Nobody has been paired.</p>}
      <table>
        <tbody>
          {data?.members.map((m) => (
            <tr data-member={`${m.channel}:${m.userId}`}>
              <td>{m.channel}</td><td>{m.name ?? m.userId}</td><td>{when(m.approvedAt)}</td><td>by {m.approvedBy}</td>
              <td class="actions"><button onClick={() => deny(m.channel, m.userId)}>Revoke</button></td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && (
        <>
          <h3>Configured lists</h3>
          <p>Direct messages: {data.lists.dmPolicy}; groups: {data.lists.groupPolicy}</p>
          <p>Owners: {data.lists.owners.join(", ") || "none"}</p>
          <p>Allowed: {data.lists.allowFrom.join(", ") || "none"}</p>
        </>
      )}
    </section>
  );
}
