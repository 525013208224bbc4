/** The console shell: sign-in with the gateway's token, a page per part of the gateway. */
import { render } from "preact";
import { useState } from "preact/hooks";
import { AuthNeeded, api, tokenStore } from "./api";
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
  channels: ["Channels", ChannelsPage],
  sessions: ["Sessions", SessionsPage],
  tasks: ["Tasks", TasksPage],
  usage: ["Usage", UsagePage],
  approvals: ["Approvals", ApprovalsPage],
  agents: ["Agents", AgentsPage],
  skills: ["Skills", SkillsPage],
  access: ["Access", AccessPage],
  receipts: ["Receipts", ReceiptsPage],
  logs: ["Logs", LogsPage],
  config: ["Config", ConfigPage],
  mcp: ["MCP", McpPage],
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
      setError(err instanceof AuthNeeded ? "That token was not accepted." : (err as Error).message);
    }
  };
  return (
    <form class="login" onSubmit={submit}>
      <h1>Switchboard console</h1>
      <p>Enter the gateway's token (http.token). It is kept in this browser only.</p>
      <input type="password" aria-label="Token" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
      {error && <p class="error">{error}</p>}
      <button type="submit">Sign in</button>
    </form>
  );
}

function App() {
  const [page, setPage] = useState<PageName>((location.hash.slice(1) as PageName) in PAGES ? (location.hash.slice(1) as PageName) : "channels");
  const [authProblem, setAuthProblem] = useState<string | null>(null);
  const onAuth = (err: unknown): boolean => {
    if (!(err instanceof AuthNeeded)) return false;
    setAuthProblem(err.message);
    return true;
  };
  if (authProblem !== null) return <Login problem={tokenStore.get() ? authProblem : ""} onDone={() => setAuthProblem(null)} />;
  const [, Page] = PAGES[page];
  return (
    <div class="shell">
      <nav>
        <strong>Switchboard</strong>
        {(Object.keys(PAGES) as PageName[]).map((name) => (
          <a
            href={`#${name}`}
            class={name === page ? "active" : ""}
            onClick={() => setPage(name)}
          >
            {PAGES[name][0]}
          </a>
        ))}
        <button
          class="link"
          onClick={() => {
            tokenStore.clear();
            setAuthProblem("");
          }}
        >
          Sign out
        </button>
      </nav>
      <main>
        <Page onAuth={onAuth} />
      </main>
    </div>
  );
}

render(<App />, document.getElementById("app")!);
