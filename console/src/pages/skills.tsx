/** Skills: type and validation problems, reload, install an uploaded archive. */
import { useState } from "preact/hooks";
import { api } from "../api";
import type { PageProps } from "../main";
import { t } from "../i18n";
import { useAction, useData } from "../use-data";

interface SkillsView {
  skills: Array<{ name: string; description: string; type: string; origin: string }>;
  issues: Array<{ level: string; file: string; message: string }>;
}

export function SkillsPage({ onAuth }: PageProps) {
  const view = useData<SkillsView>("/skills", onAuth);
  const action = useAction(onAuth);
  const [note, setNote] = useState("");
  const install = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    action.run(async () => {
      const result = await api.post<{ installed: { name: string; type: string } }>("/skills/install", new FormData(form));
      setNote(t("skills.installed", result.installed));
      form.reset();
    }, view.reload);
  };
  return (
    <section>
      <h2>{t("skills.title")}</h2>
      {(view.error ?? action.error) && <p class="error">{view.error ?? action.error}</p>}
      {note && <p class="ok">{note}</p>}
      <div class="toolbar">
        <button onClick={() => action.run(() => api.post("/skills/reload"), view.reload)}>{t("skills.reload")}</button>
        <form onSubmit={install}>
          <input type="file" name="archive" accept=".zip,.tar.gz,.tgz" aria-label={t("skills.archive")} required />
          <button type="submit">{t("skills.install")}</button>
        </form>
      </div>
      <table>
        <thead><tr><th>{t("skills.skill")}</th><th>{t("skills.type")}</th><th>{t("skills.origin")}</th><th>{t("skills.description")}</th></tr></thead>
        <tbody>
          {view.data?.skills.map((s) => (
            <tr><td>{s.name}</td><td>{s.type}</td><td>{s.origin}</td><td>{s.description}</td></tr>
          ))}
        </tbody>
      </table>
      <h3>{t("skills.problems")}</h3>
      {view.data?.issues.length === 0 && <p>{t("skills.noProblems")}</p>}
      <ul>
        {view.data?.issues.map((i) => (
          <li class={i.level}><b>{i.level}</b> {i.file}: {i.message}</li>
        ))}
      </ul>
    </section>
  );
}
