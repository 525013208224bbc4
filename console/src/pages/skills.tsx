/** Skills: type and validation problems, reload, install an uploaded archive. */
import { useState } from "preact/hooks";
import { api } from "../api";
import type { PageProps } from "../main";
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
      setNote(`Installed ${result.installed.name} (${result.installed.type}).`);
      form.reset();
    }, view.reload);
  };
  return (
    <section>
      <h2>Skills</h2>
      {(view.error ?? action.error) && <p class="error">{view.error ?? action.error}</p>}
      {note && <p class="ok">{note}</p>}
      <div class="toolbar">
        <button onClick={() => action.run(() => api.post("/skills/reload"), view.reload)}>Reload</button>
        <form onSubmit={install}>
          <input type="file" name="archive" accept=".zip,.tar.gz,.tgz" aria-label="Skill archive" required />
          <button type="submit">Install</button>
        </form>
      </div>
      <table>
        <thead><tr><th>Skill</th><th>Type</th><th>From</th><th>Description</th></tr></thead>
        <tbody>
          {view.data?.skills.map((s) => (
            <tr><td>{s.name}</td><td>{s.type}</td><td>{s.origin}</td><td>{s.description}</td></tr>
          ))}
        </tbody>
      </table>
      <h3>Problems</h3>
      {view.data?.issues.length === 0 && <p>None.</p>}
      <ul>
        {view.data?.issues.map((i) => (
          <li class={i.level}><b>{i.level}</b> {i.file}: {i.message}</li>
        ))}
      </ul>
    </section>
  );
}
