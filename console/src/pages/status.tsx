/** The read-only pages: channels with live status, receipts, the log tail, the configuration, MCP servers. */
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api";
import type { PageProps } from "../main";
import { language, t, when } from "../i18n";
import { useData } from "../use-data";

interface ChannelView {
  name: string;
  connected: boolean;
  detail?: string;
}

interface ReplicasView {
  id: string;
  leases: string[];
  live: Array<{ id: string; startedAt: string; leases: string[] }>;
}

/** One model entry: its state, and the line /status shows owners (model, provider, until when, last failure). */
interface ModelView {
  name: string;
  state: "ready" | "cooling" | "refused";
  detail: string;
}

export function ChannelsPage({ onAuth }: PageProps) {
  const { data, error } = useData<{ channels: ChannelView[]; replicas: ReplicasView; models: ModelView[] }>("/channels", onAuth, 3000);
  return (
    <section>
      <h2>{t("channels.title")}</h2>
      {error && <p class="error">{error}</p>}
      <table>
        <thead><tr><th>{t("channels.channel")}</th><th>{t("channels.status")}</th><th>{t("channels.detail")}</th></tr></thead>
        <tbody>
          {data?.channels.map((c) => (
            <tr data-channel={c.name}>
              <td>{c.name}</td>
              <td><span class={c.connected ? "ok" : "bad"}>{t(c.connected ? "channels.connected" : "channels.down")}</span></td>
              <td>{c.detail ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>{t("channels.models")}</h3>
      <table>
        <thead><tr><th>{t("channels.entry")}</th><th>{t("channels.state")}</th><th>{t("channels.detail")}</th></tr></thead>
        <tbody>
          {data?.models.map((m) => (
            <tr data-model={m.name}>
              <td>{m.name}</td>
              <td><span class={m.state === "ready" ? "ok" : "bad"}>{t(`channels.${m.state}`)}</span></td>
              <td>{m.detail}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>{t("channels.replicas")}</h3>
      <table>
        <thead><tr><th>{t("channels.replica")}</th><th>{t("channels.holds")}</th><th>{t("channels.started")}</th></tr></thead>
        <tbody>
          {data?.replicas.live.map((r) => (
            <tr data-replica={r.id}>
              <td>{r.id === data.replicas.id ? t("channels.thisOne", { id: r.id }) : r.id}</td>
              <td>{r.leases.join(", ")}</td>
              <td>{when(Date.parse(r.startedAt))}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

interface Receipt {
  chat: string;
  messageId?: string;
  name?: string;
  sentAt?: number;
  [field: string]: unknown;
}

export function ReceiptsPage({ onAuth }: PageProps) {
  const { data, error } = useData<{ receipts: Receipt[] }>("/receipts", onAuth);
  return (
    <section>
      <h2>{t("receipts.title")}</h2>
      {error && <p class="error">{error}</p>}
      {data && data.receipts.length === 0 && <p>{t("receipts.none")}</p>}
      <pre class="json">{data ? JSON.stringify(data.receipts, null, 2) : ""}</pre>
    </section>
  );
}

interface TailLine {
  seq: number;
  line: string;
}

/** Polls for lines after the last one seen; keeps the newest 500. */
export function LogsPage({ onAuth }: PageProps) {
  const [lines, setLines] = useState<TailLine[]>([]);
  const [available, setAvailable] = useState(true);
  const last = useRef(0);
  useEffect(() => {
    const poll = () =>
      api.get<{ available: boolean; lines: TailLine[] }>(`/logs?after=${last.current}`).then(
        (r) => {
          setAvailable(r.available);
          if (r.lines.length === 0) return;
          last.current = r.lines[r.lines.length - 1]!.seq;
          setLines((old) => [...old, ...r.lines].slice(-500));
        },
        (err: unknown) => onAuth(err),
      );
    void poll();
    const timer = setInterval(poll, 2000);
    return () => clearInterval(timer);
  }, []);
  return (
    <section>
      <h2>{t("logs.title")}</h2>
      {!available && <p>{t("logs.unavailable")}</p>}
      <pre class="log">{lines.map((l) => formatLine(l.line)).join("\n")}</pre>
    </section>
  );
}

function formatLine(line: string): string {
  try {
    const { time, level, msg, ...rest } = JSON.parse(line) as { time?: number; level?: number; msg?: string };
    return `${time ? new Date(time).toLocaleTimeString(language()) : ""} ${level ?? ""} ${msg ?? ""} ${JSON.stringify(rest)}`;
  } catch {
    return line;
  }
}

export function ConfigPage({ onAuth }: PageProps) {
  const { data, error } = useData<{ config: unknown }>("/config", onAuth);
  return (
    <section>
      <h2>{t("config.title")}</h2>
      <p>{t("config.secrets")}</p>
      {error && <p class="error">{error}</p>}
      <pre class="json">{data ? JSON.stringify(data.config, null, 2) : ""}</pre>
    </section>
  );
}

interface McpServer {
  name: string;
  status: string;
  /** The server wants an OAuth login no owner has done yet. */
  needsLogin?: boolean;
  tools: string[];
}

export function McpPage({ onAuth }: PageProps) {
  const { data, error } = useData<{ servers: McpServer[] }>("/mcp", onAuth);
  const [login, setLogin] = useState<{ name: string; url?: string; error?: string } | null>(null);
  const startLogin = (name: string) =>
    api.post<{ url: string }>(`/mcp/${encodeURIComponent(name)}/login`).then(
      ({ url }) => setLogin({ name, url }),
      (err: unknown) => setLogin({ name, error: err instanceof Error ? err.message : String(err) }),
    );
  return (
    <section>
      <h2>{t("mcp.title")}</h2>
      {error && <p class="error">{error}</p>}
      {login?.url && (
        <p>
          <a href={login.url} target="_blank" rel="noopener noreferrer">{t("mcp.loginLink", { name: login.name })}</a> {t("mcp.loginNote")}
        </p>
      )}
      {login?.error && <p class="error">{t("mcp.loginFailed", { name: login.name, error: login.error })}</p>}
      {data && data.servers.length === 0 && <p>{t("mcp.none")}</p>}
      <table>
        <tbody>
          {data?.servers.map((s) => (
            <tr>
              <td>{s.name}</td>
              <td>{s.status}{s.needsLogin && <button onClick={() => void startLogin(s.name)}>{t("mcp.logIn")}</button>}</td>
              <td>{s.tools.join(", ")}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted">{t("mcp.updated", { when: when(Date.now()) })}</p>
    </section>
  );
}
