/** The console shell: sign-in with the gateway's token, a page per part of the gateway, the language switch. */
import { render } from "preact";
import { useState } from "preact/hooks";
import { AuthNeeded, api, tokenStore } from "./api";
import { language, setLanguage, showLanguage, t } from "./i18n";
import { LOCALES, type Locale } from "../../src/core/locales.js";
import { LANGUAGE_NAMES } from "../i18n/language";
import { AccessPage } from "./pages/access";
import { AgentsPage } from "./pages/agents";
import { ApprovalsPage } from "./pages/approvals";
import { ChannelsPage, ConfigPage, LogsPage, McpPage, ReceiptsPage } from "./pages/status";
import { SessionsPage } from "./pages/sessions";
import { SkillsPage } from "./pages/skills";
import { TasksPage } from "./pages/tasks";
import { UsagePage } from "./pages/usage";
import "./style.css";

export interface PageProps {
  onAuth: (err: unknown) => boolean;
}

const PAGES = {
  channels: ChannelsPage,
  sessions: SessionsPage,
  tasks: TasksPage,
  usage: UsagePage,
  approvals: ApprovalsPage,
  agents: AgentsPage,
  skills: SkillsPage,
  access: AccessPage,
  receipts: ReceiptsPage,
  logs: LogsPage,
  config: ConfigPage,
  mcp: McpPage,
} as const;
type PageName = keyof typeof PAGES;

function Login({ problem, onDone }: { problem: string; onDone: () => void }) {
  const [value, setValue] = useState("");
  const [error, setError] = useState(problem);
  const submit = async (event: Event) => {
    event.preventDefault();
    tokenStore.set(value.trim());
    try {
      await api.get("/channels");
      onDone();
    } catch (err) {
      setError(err instanceof AuthNeeded ? t("login.refused") : (err as Error).message);
    }
  };
  return (
    <form class="login" onSubmit={submit}>
      <h1>{t("app.title")}</h1>
      <p>{t("login.intro")}</p>
      <input type="password" aria-label={t("login.token")} value={value} onInput={(e) => setValue(e.currentTarget.value)} />
      {error && <p class="error">{error}</p>}
      <button type="submit">{t("login.submit")}</button>
    </form>
  );
}

/** The language switch: re-rendering the shell re-renders every page in the new language. */
function LanguageSwitch({ value, onChange }: { value: Locale; onChange: (next: Locale) => void }) {
  return (
    <select class="language" aria-label={t("app.language")} value={value} onChange={(e) => onChange(e.currentTarget.value as Locale)}>
      {LOCALES.map((name) => (
        <option value={name}>{LANGUAGE_NAMES[name]}</option>
      ))}
    </select>
  );
}

function App() {
  const [page, setPage] = useState<PageName>((location.hash.slice(1) as PageName) in PAGES ? (location.hash.slice(1) as PageName) : "channels");
  const [authProblem, setAuthProblem] = useState<string | null>(null);
  const [lang, setLang] = useState(language());
  const switchTo = (next: Locale) => {
    setLanguage(next);
    setLang(next);
  };
  const onAuth = (err: unknown): boolean => {
    if (!(err instanceof AuthNeeded)) return false;
    setAuthProblem(err.message);
    return true;
  };
  if (authProblem !== null) {
    return (
      <>
        <LanguageSwitch value={lang} onChange={switchTo} />
        <Login problem={tokenStore.get() ? authProblem : ""} onDone={() => setAuthProblem(null)} />
      </>
    );
  }
  const Page = PAGES[page];
  return (
    <div class="shell">
      <nav>
        <strong>{t("app.brand")}</strong>
        <LanguageSwitch value={lang} onChange={switchTo} />
        {(Object.keys(PAGES) as PageName[]).map((name) => (
          <a
            href={`#${name}`}
            class={name === page ? "active" : ""}
            onClick={() => setPage(name)}
          >
            {t(`nav.${name}`)}
          </a>
        ))}
        <button
          class="link"
          onClick={() => {
            tokenStore.clear();
            setAuthProblem("");
          }}
        >
          {t("app.signOut")}
        </button>
      </nav>
      <main>
        <Page onAuth={onAuth} />
      </main>
    </div>
  );
}

showLanguage();
render(<App />, document.getElementById("app")!);
