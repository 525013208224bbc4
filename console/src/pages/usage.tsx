/**
 * Usage: the gateway's model use (and the pictures the image tools made) today and this month, a chart of tokens and
 * cost by day, and a report by person, chat, model or work.
 */
import { useState } from "preact/hooks";
import type { PageProps } from "../main";
import { num, t } from "../i18n";
import { useData } from "../use-data";
import type { UsageAmounts as Totals } from "../../../src/core/usage-port.js";

interface Row extends Totals {
  name: string;
}

interface UsageView {
  since: string;
  totals: { daily: Totals; monthly: Totals };
  rows: Row[];
}

const BY = ["user", "chat", "model", "work"] as const;
const CHART = { width: 720, height: 180, gap: 2 };

const tokens = (n: number): string => num(n);
const money = (n: number): string => num(n, n !== 0 && n < 0.01 ? 4 : 2);

/** Tokens per day as bars (input and output stacked), the day's cost in each bar's title. */
function DailyChart({ rows }: { rows: Row[] }) {
  if (rows.length === 0) return <p>{t("usage.nothing")}</p>;
  const most = Math.max(...rows.map((r) => r.input + r.output), 1);
  const width = CHART.width / rows.length;
  const scale = (n: number): number => (n / most) * (CHART.height - 20);
  return (
    <svg class="chart" viewBox={`0 0 ${CHART.width} ${CHART.height}`} role="img" aria-label={t("usage.chart")}>
      {rows.map((r, i) => {
        const x = i * width;
        const out = scale(r.output);
        const inp = scale(r.input);
        return (
          <g>
            <title>{t("usage.bar", { day: r.name, input: tokens(r.input), output: tokens(r.output), cost: money(r.cost) })}</title>
            <rect x={x} y={CHART.height - 16 - inp - out} width={width - CHART.gap} height={inp} class="input" />
            <rect x={x} y={CHART.height - 16 - out} width={width - CHART.gap} height={out} class="output" />
            {rows.length <= 31 && <text x={x + width / 2} y={CHART.height - 2} text-anchor="middle">{r.name.slice(8)}</text>}
          </g>
        );
      })}
    </svg>
  );
}

function TotalsRow({ label, totals }: { label: string; totals: Totals }) {
  return (
    <tr>
      <td>{label}</td><td>{t("usage.cached", { input: tokens(totals.input), cached: tokens(totals.cachedInput) })}</td>
      <td>{tokens(totals.output)}</td><td>{money(totals.cost)}</td><td>{num(totals.calls)}</td>
      <td>{totals.images > 0 ? t("usage.imagesCost", { images: num(totals.images), cost: money(totals.imageCost) }) : "–"}</td>
    </tr>
  );
}

export function UsagePage({ onAuth }: PageProps) {
  const [by, setBy] = useState<(typeof BY)[number]>("user");
  const days = useData<UsageView>("/usage?by=day", onAuth, 60_000);
  const report = useData<UsageView>(`/usage?by=${by}`, onAuth, 60_000);
  const columns = ["input", "output", "cost", "calls", "images"].map((c) => <th>{t(`usage.${c}`)}</th>);
  return (
    <section>
      <h2>{t("usage.title")}</h2>
      {(days.error ?? report.error) && <p class="error">{days.error ?? report.error}</p>}
      <table>
        <thead><tr><th />{columns}</tr></thead>
        <tbody>
          {days.data && <TotalsRow label={t("usage.today")} totals={days.data.totals.daily} />}
          {days.data && <TotalsRow label={t("usage.month")} totals={days.data.totals.monthly} />}
        </tbody>
      </table>
      <h3>{t("usage.perDay", { since: days.data?.since ?? "" })}</h3>
      {days.data && <DailyChart rows={days.data.rows} />}
      <h3>
        {t("usage.monthBy")}{" "}
        <select value={by} aria-label={t("usage.groupBy")} onChange={(e) => setBy(e.currentTarget.value as (typeof BY)[number])}>
          {BY.map((b) => <option value={b}>{t(`usage.by.${b}`)}</option>)}
        </select>
      </h3>
      <table>
        <thead><tr><th>{t(`usage.by.${by}`)}</th>{columns}</tr></thead>
        <tbody>
          {report.data?.rows.map((r) => <TotalsRow label={r.name} totals={r} />)}
        </tbody>
      </table>
    </section>
  );
}
