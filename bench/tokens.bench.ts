/**
 * `npm run bench tokens`: what a session's requests cost in input tokens, the design in the code against the one
 * before it (BASELINE, run from its own source extracted from git), both through the whole gateway against the
 * fake LLM server, in both request shapes (OpenAI-compatible and Anthropic). Every tool family is on (web,
 * browser, desktop, voice, images, memory, skills, scheduled tasks, MCP's tools, the file and chat tools) and a
 * stand-in delegate_task is registered (the bench configures no helper agents for the real one). The scripted model's rule is
 * in test/fakes/scripted-model.ts (scriptedModel): it calls a tool directly only when the request showed that
 * tool's parameters, and otherwise asks get_tool_info first.
 *
 * Per conversation and design: model calls, the input tokens of each request (o200k_base over the HTTP body as
 * sent), and the stable prefix: the share of each request after the first that repeats the one before it, in the
 * order a provider reads it (tools, system, messages), which is what a prompt cache can serve.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:http";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { AddressInfo } from "node:net";
import { countTokens } from "gpt-tokenizer";
import { z } from "zod";
import { startFakeOpenAI, type FakeRequest } from "../test/fakes/openai-server.js";
import { CONVERSATIONS, DELEGATION, GREETING, scriptedModel, webConversations, type ScriptedConversation } from "../test/fakes/scripted-model.js";
import type * as AppModule from "../src/app.js";
import type * as ConfigModule from "../src/config.js";
import type * as LogModule from "../src/infra/log.js";
import type { BenchResult } from "./types.js";

/** The design before this one: every permitted tool's compact schema on every request. BENCH_TOKENS_BASELINE overrides. */
const BASELINE = process.env.BENCH_TOKENS_BASELINE ?? "6fe1477";
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PROVIDERS = ["openai-compatible", "anthropic"] as const;
type Provider = (typeof PROVIDERS)[number];

/** What the bench needs of a build's source: the same three modules in both. */
interface Build {
  label: string;
  app: typeof AppModule;
  config: typeof ConfigModule;
  log: typeof LogModule;
}

async function loadBuild(label: string, srcDir: string): Promise<Build> {
  const load = (path: string) => import(pathToFileURL(join(srcDir, path)).href);
  return { label, app: await load("app.ts"), config: await load("config.ts"), log: await load("infra/log.ts") };
}

/** The baseline's src/ and skills/ from git. */
async function extractBaseline(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "switchboard-tokens-baseline-"));
  const tar = execFileSync("git", ["archive", "--format=tar", BASELINE, "src", "skills", "package.json"], { cwd: ROOT, maxBuffer: 256 << 20 });
  execFileSync("tar", ["-x", "-C", dir], { input: tar });
  // What the build makes (the WebChat page) and the packages are this checkout's.
  for (const shared of ["node_modules", "public"]) await symlink(join(ROOT, shared), join(dir, shared));
  return dir;
}

/**
 * One X display for every gateway of the run: each starting and stopping its own, the next one's window manager
 * did not come up.
 */
async function startDisplay(): Promise<{ name: string; process: ChildProcess }> {
  const xvfb = spawn("Xvfb", ["-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"], { stdio: ["ignore", "pipe", "ignore"] });
  let written = "";
  const number = await new Promise<string>((resolve, reject) => {
    xvfb.stdout.on("data", (chunk: Buffer) => {
      written += chunk.toString();
      const match = /^(\d+)\n/.exec(written);
      if (match) resolve(match[1]!);
    });
    xvfb.once("error", reject);
    xvfb.once("exit", (code) => reject(new Error(`Xvfb exited with ${String(code)}`)));
  });
  return { name: `:${number}`, process: xvfb };
}

const PAGES: Record<string, string> = {
  "/": '<html><head><title>Tea</title></head><body><h1>Tea shop</h1><p>Fresh leaves daily.</p><a href="/news.html">More</a></body></html>',
  "/news.html": "<html><head><title>News</title></head><body><h1>News</h1><p>The tea shop opens a second branch on Elm Street.</p></body></html>",
};

async function startSite(): Promise<{ url: string; close: () => void }> {
  const server = createServer((req, res) => {
    const page = PAGES[req.url ?? "/"];
    res.writeHead(page ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    res.end(page ?? "not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() };
}

/** The stand-in for the agents feature's delegate_task: same name, category and input as planned. */
const delegateStandIn = {
  name: "agents",
  tools: [
    {
      definition: {
        name: "delegate_task",
        category: "Agents",
        shortDescription: "Hand a self-contained sub-task to a helper agent and get its result",
        description:
          "Runs a helper agent on one self-contained task with its own tools and returns its final answer. When to use: a task with several steps whose details the user does not need. Example: delegate_task({\"task\": \"Compare three tea shops\"})",
        input: z.object({
          task: z.string().min(1).describe("What the helper should do and return"),
          context: z.string().optional().describe("What the helper needs to know from this conversation"),
        }),
        risk: "chat" as const,
      },
      run: async () => ({ result: "Elm Street: best green tea, quiet. Oak Road: cheaper, loud. Pine Lane: closed Mondays." }),
    },
  ],
};

async function record(build: Build, provider: Provider, conversation: ScriptedConversation, display: string): Promise<FakeRequest[]> {
  const fake = await startFakeOpenAI();
  fake.respondWith(scriptedModel(conversation));
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-tokens-bench-"));
  const config = build.config.configSchema.parse({
    dataDir,
    http: { port: 0 },
    llm: { provider, baseUrl: fake.url, model: "fake-model", apiKey: "sk-bench", maxRetries: 0 },
    log: { level: "silent" },
    web: { allowPrivate: ["127.0.0.1"] },
    browser: { enabled: true },
    desktop: { enabled: true, display },
    images: { baseUrl: fake.url },
    tts: { baseUrl: fake.url },
    memory: { enabled: true },
  });
  const gateway = await build.app.Gateway.create(config, { log: build.log.createLogger({ level: "silent", secrets: [] }) });
  gateway.registry.register(delegateStandIn);
  const { url } = await gateway.start();
  try {
    for (const [index, turn] of conversation.turns.entries()) {
      const response = await fetch(`${url}/api/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ chatId: "bench", userId: "alice", text: turn.text, messageId: `m${index}` }),
      });
      const body = (await response.json()) as { outcome?: string };
      if (body.outcome !== "answered") throw new Error(`${build.label}, ${conversation.name}, turn ${index + 1}: ${JSON.stringify(body)}`);
    }
    return [...fake.requests];
  } finally {
    await gateway.stop();
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The request in the order a provider reads it: tools, system, then the messages. */
function promptOrder(request: FakeRequest): string {
  const { tools = [], system, messages = [] } = request.body;
  return [JSON.stringify(tools), JSON.stringify(system ?? ""), ...messages.map((m) => JSON.stringify(m))].join("\n");
}

function commonPrefix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return a.slice(0, i);
}

interface Measure {
  calls: number;
  tokens: number[];
  /** Per request after the first: the share repeated from the request before. */
  prefixShares: number[];
}

function measure(requests: readonly FakeRequest[]): Measure {
  const ordered = requests.map(promptOrder);
  return {
    calls: requests.length,
    tokens: requests.map((r) => countTokens(r.raw)),
    prefixShares: ordered.slice(1).map((text, i) => countTokens(commonPrefix(text, ordered[i]!)) / countTokens(text)),
  };
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);
const percent = (share: number): string => `${(100 * share).toFixed(0)}%`;

export async function run(): Promise<BenchResult> {
  const baselineDir = await extractBaseline();
  const site = await startSite();
  const display = await startDisplay();
  try {
    const builds = [await loadBuild("this design", join(ROOT, "src")), await loadBuild(`before (${BASELINE})`, join(baselineDir, "src"))];
    const conversations = [GREETING, ...CONVERSATIONS, ...webConversations(site.url), DELEGATION];
    const rows: BenchResult["rows"] = [];
    const totals = new Map<string, number>();
    for (const provider of PROVIDERS) {
      for (const conversation of conversations) {
        const now = measure(await record(builds[0]!, provider, conversation, display.name));
        const before = measure(await record(builds[1]!, provider, conversation, display.name));
        for (const [build, m] of [[builds[0]!, now], [builds[1]!, before]] as const) {
          const key = `${provider} ${build.label}`;
          totals.set(key, (totals.get(key) ?? 0) + sum(m.tokens));
          rows.push({
            shape: provider,
            conversation: conversation.name,
            design: build.label,
            "model calls": m.calls,
            "input tokens per request": m.tokens.join(", "),
            total: sum(m.tokens),
            "stable prefix (min, after the first)": m.prefixShares.length > 0 ? percent(Math.min(...m.prefixShares)) : "-",
          });
        }
      }
      const ours = totals.get(`${provider} ${builds[0]!.label}`)!;
      const theirs = totals.get(`${provider} ${builds[1]!.label}`)!;
      rows.push({ shape: provider, conversation: "(all)", design: "this / before", total: `${ours} / ${theirs} = ${(ours / theirs).toFixed(2)}x` });
    }
    return {
      name: "tokens",
      workload:
        `${conversations.length} scripted conversations through the gateway (owner, WebChat DM), every tool family on, ` +
        `both wire shapes; o200k_base over each HTTP request body; baseline: ${BASELINE} from git`,
      rows,
    };
  } finally {
    site.close();
    display.process.kill();
    await rm(baselineDir, { recursive: true, force: true });
  }
}
