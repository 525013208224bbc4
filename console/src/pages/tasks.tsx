/** Scheduled tasks: list, recent runs, cancel, run now, pause and resume. */
import { useState } from "preact/hooks";
import { api } from "../api";
import type { PageProps } from "../main";
import { num, t, when } from "../i18n";
import { useAction, useData } from "../use-data";

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
      <h2>{t("tasks.title")}</h2>
      {(list.error ?? action.error) && <p class="error">{list.error ?? action.error}</p>}
      {list.data?.tasks.length === 0 && <p>{t("tasks.none")}</p>}
      <table>
        <thead><tr><th>{t("tasks.task")}</th><th>{t("tasks.kind")}</th><th>{t("tasks.chat")}</th><th>{t("tasks.status")}</th><th>{t("tasks.next")}</th><th>{t("tasks.runs")}</th><th /></tr></thead>
        <tbody>
          {list.data?.tasks.map((task) => (
            <tr data-task={task.id}>
              <td>{task.name ?? task.text.slice(0, 60)}</td>
              <td>{task.kind}</td>
              <td>{task.target.chatId}</td>
              <td class="status">{task.status}</td>
              <td>{when(task.nextRunAt)}</td>
              <td>{num(task.runCount)}</td>
              <td class="actions">
                <button onClick={() => act(task.id, "run")}>{t("tasks.runNow")}</button>
                {task.status === "paused" ? <button onClick={() => act(task.id, "resume")}>{t("tasks.resume")}</button> : <button onClick={() => act(task.id, "pause")}>{t("tasks.pause")}</button>}
                <button onClick={() => act(task.id, "cancel")}>{t("tasks.cancel")}</button>
                <button onClick={() => showRuns(task.id)}>{t("tasks.showRuns")}</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs && (
        <div>
          <h3>{t("tasks.runsOf", { id: runs.id })}</h3>
          {runs.runs.length === 0 && <p>{t("tasks.noRuns")}</p>}
          <table>
            <tbody>
              {runs.runs.map((r) => (
                <tr><td>{when(r.scheduledFor)}</td><td>{r.reason}</td><td>{r.status}</td><td>{t("tasks.late", { seconds: num(r.lateMs / 1000) })}</td><td>{r.error ?? ""}</td></tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
