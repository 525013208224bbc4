/** Scheduled tasks: list, recent runs, cancel, run now, pause and resume. */
import { useState } from "preact/hooks";
import { api } from "../api";
import type { PageProps } from "../main";
import { useAction, useData, when } from "../use-data";

interface Task {
  id: string;
  name: string | null;
  kind: string;
  text: string;
  status: string;
  nextRunAt: number | null;
  runCount: number;
  target: { chatId: string };
}

interface Run {
  scheduledFor: number;
  reason: string;
  status: string;
  lateMs: number;
  error: string | null;
}

export function TasksPage({ onAuth }: PageProps) {
  const list = useData<{ tasks: Task[] }>("/tasks", onAuth, 5000);
  const [runs, setRuns] = useState<{ id: string; runs: Run[] } | null>(null);
  const action = useAction(onAuth);
  const act = (id: string, verb: string) => action.run(() => api.post(`/tasks/${encodeURIComponent(id)}/${verb}`), list.reload);
  const showRuns = (id: string) => action.run(async () => setRuns({ id, runs: (await api.get<{ runs: Run[] }>(`/tasks/${encodeURIComponent(id)}/runs`)).runs }));
  return (
    <section>
      <h2>Scheduled tasks</h2>
      {(list.error ?? action.error) && <p class="error">{list.error ?? action.error}</p>}
      {list.data?.tasks.length === 0 && <p>No live tasks.</p>}
      <table>
        <thead><tr><th>Task</th><th>Kind</th><th>Chat</th><th>Status</th><th>Next run</th><th>Runs</th><th /></tr></thead>
        <tbody>
          {list.data?.tasks.map((t) => (
            <tr data-task={t.id}>
              <td>{t.name ?? t.text.slice(0, 60)}</td>
              <td>{t.kind}</td>
              <td>{t.target.chatId}</td>
              <td class="status">{t.status}</td>
              <td>{when(t.nextRunAt)}</td>
              <td>{t.runCount}</td>
              <td class="actions">
                <button onClick={() => act(t.id, "run")}>Run now</button>
                {t.status === "paused" ? <button onClick={() => act(t.id, "resume")}>Resume</button> : <button onClick={() => act(t.id, "pause")}>Pause</button>}
                <button onClick={() => act(t.id, "cancel")}>Cancel</button>
                <button onClick={() => showRuns(t.id)}>Runs</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs && (
        <div>
          <h3>Runs of {runs.id}</h3>
          {runs.runs.length === 0 && <p>No runs yet.</p>}
          <table>
            <tbody>
              {runs.runs.map((r) => (
                <tr><td>{when(r.scheduledFor)}</td><td>{r.reason}</td><td>{r.status}</td><td>{Math.round(r.lateMs / 1000)} s late</td><td>{r.error ?? ""}</td></tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
