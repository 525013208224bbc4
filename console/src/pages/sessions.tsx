/** Sessions: the list with search, one session's transcript, and reset. */
import { useState } from "preact/hooks";
import { api } from "../api";
import type { PageProps } from "../main";
import { t, when } from "../i18n";
import { useAction, useData } from "../use-data";
import type { SessionEntry } from "../../../src/core/session-entry.js";

interface Transcript {
  key: string;
  summary: string | null;
  messages: Array<{ role: string; text: string }>;
}

export function SessionsPage({ onAuth }: PageProps) {
  const [query, setQuery] = useState("");
  const list = useData<{ sessions: SessionEntry[] }>(`/sessions?q=${encodeURIComponent(query)}`, onAuth, 5000);
  const [open, setOpen] = useState<Transcript | null>(null);
  const action = useAction(onAuth);
  const show = (key: string) => action.run(async () => setOpen(await api.get<Transcript>(`/sessions/${encodeURIComponent(key)}/transcript`)));
  const reset = (key: string) =>
    action.run(
      () => api.post(`/sessions/${encodeURIComponent(key)}/reset`),
      () => show(key),
    );
  return (
    <section>
      <h2>{t("sessions.title")}</h2>
      <input type="search" placeholder={t("sessions.search")} aria-label={t("sessions.search")} value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
      {(list.error ?? action.error) && <p class="error">{list.error ?? action.error}</p>}
      <table>
        <thead><tr><th>{t("sessions.session")}</th><th>{t("sessions.who")}</th><th>{t("sessions.last")}</th><th>{t("sessions.when")}</th><th /></tr></thead>
        <tbody>
          {list.data?.sessions.map((s) => (
            <tr data-session={s.key}>
              <td><code>{s.key}</code></td>
              <td>{s.chatTitle ? t("sessions.inChat", { who: s.userName ?? s.userId, chat: s.chatTitle }) : (s.userName ?? s.userId)}</td>
              <td>{s.preview}</td>
              <td>{when(s.updatedAt)}</td>
              <td class="actions">
                <button onClick={() => show(s.key)}>{t("sessions.transcript")}</button>
                <button onClick={() => reset(s.key)}>{t("sessions.reset")}</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data?.sessions.length === 0 && <p>{t("sessions.none")}</p>}
      {open && (
        <div class="transcript">
          <h3>{open.key}</h3>
          {open.summary && <p class="muted">{t("sessions.summary", { summary: open.summary })}</p>}
          {open.messages.length === 0 && <p>{t("sessions.empty")}</p>}
          {open.messages.map((m) => (
            <div class={`line ${m.role}`}><b>{m.role}</b> <span>{m.text}</span></div>
          ))}
        </div>
      )}
    </section>
  );
}
