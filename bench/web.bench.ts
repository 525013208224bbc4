/**
 * The web tools: web_fetch of a ~200 KB article page on a local server (time, and tokens of the Markdown against the
 * raw HTML), a browser context's start to its first screenshot, and the RSS of Chromium's processes with 4 contexts.
 */
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { browserConfigSchema } from "../src/browser/config.js";
import { BrowserPool } from "../src/browser/pool.js";
import { countTokens } from "../src/core/tokens.js";
import { AddressGuard } from "../src/infra/net/address-guard.js";
import { webConfigSchema } from "../src/web/config.js";
import { WebEngine } from "../src/web/index.js";
import { median } from "./stats.js";
import type { BenchResult } from "./types.js";

const RUNS = 15;

function articlePage(targetBytes: number): string {
  const nav = Array.from({ length: 200 }, (_, i) => `<li><a href="/section/${i}" class="nav-link nav-item">Section ${i}</a></li>`).join("");
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < targetBytes * 0.78; i++) {
    const p = `<p class="para">Paragraph ${i}: the harbour lights came on one by one as the ferry turned towards the pier, and the keeper wrote the evening's weather in his log, as he had done for forty years.</p>\n`;
    parts.push(i % 12 === 0 ? `<h2>Chapter ${i / 12 + 1}</h2>\n${p}` : p);
    size += p.length;
  }
  const script = `<script>window.analytics = ${JSON.stringify(Array.from({ length: 800 }, (_, i) => ({ id: i, tag: "tracking-pixel" })))};</script>`;
  return `<!doctype html><html><head><title>The Harbour</title><style>.para{line-height:1.5}</style>${script}</head><body><nav><ul>${nav}</ul></nav><article><h1>The Harbour</h1>${parts.join("")}</article><footer>${"Footer links. ".repeat(200)}</footer></body></html>`;
}

/** Sum of the RSS of every process under the Chromium launched with this proxy (kB from ps); shared pages count once per process, so it overstates. */
function chromiumRssMb(proxyUrl: string): number {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid=,rss=,args="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/.exec(line)!)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), rss: Number(m[3]), args: m[4]! }));
  const roots = new Set(rows.filter((r) => r.args.includes(`--proxy-server=${proxyUrl}`)).map((r) => r.pid));
  let grew = true;
  while (grew) {
    grew = false;
    for (const r of rows) if (!roots.has(r.pid) && roots.has(r.ppid)) grew = roots.add(r.pid).size > 0;
  }
  return rows.filter((r) => roots.has(r.pid)).reduce((sum, r) => sum + r.rss, 0) / 1024;
}

export async function run(): Promise<BenchResult> {
  const html = articlePage(200 * 1024);
  const server = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/article`;
  const rows: BenchResult["rows"] = [];

  const engine = new WebEngine(webConfigSchema.parse({ allowPrivate: [`127.0.0.1:${port}`] }));
  const times: number[] = [];
  let markdown = "";
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    markdown = (await engine.fetchPage(url, 1_000_000, AbortSignal.timeout(30_000))).markdown;
    times.push(performance.now() - started);
  }
  await engine.close();
  rows.push({ measure: "web_fetch 200 KB article, median ms", value: median(times).toFixed(1) });
  rows.push({ measure: "raw HTML: KB / tokens", value: `${(html.length / 1024).toFixed(0)} / ${countTokens(html)}` });
  rows.push({ measure: "Markdown: KB / tokens", value: `${(markdown.length / 1024).toFixed(0)} / ${countTokens(markdown)}` });

  const pool = new BrowserPool(browserConfigSchema.parse({ maxContexts: 4 }), new AddressGuard({ allowPrivate: [`127.0.0.1:${port}`] }));
  try {
    let started = performance.now();
    const first = await pool.acquire("bench:0");
    await first.active.goto(url);
    await first.active.screenshot({ type: "png" });
    rows.push({ measure: "cold: launch + context + load + screenshot, ms", value: (performance.now() - started).toFixed(0) });
    started = performance.now();
    const second = await pool.acquire("bench:1");
    await second.active.goto(url);
    await second.active.screenshot({ type: "png" });
    rows.push({ measure: "warm: new context + load + screenshot, ms", value: (performance.now() - started).toFixed(0) });
    for (const key of ["bench:2", "bench:3"]) await (await pool.acquire(key)).active.goto(url);
    rows.push({ measure: "Chromium RSS with 4 open contexts, MB", value: chromiumRssMb(pool.proxyAddress ?? "").toFixed(0) });
  } finally {
    await pool.close();
    server.close();
  }
  return { name: "web", workload: `web_fetch of a ${(html.length / 1024).toFixed(0)} KB article page (${RUNS} runs, local server); Chromium on 4 contexts`, rows };
}
