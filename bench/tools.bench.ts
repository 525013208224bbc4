/**
 * Which tool schemas go with each request. The three scripted conversations run through the whole
 * gateway against the fake LLM server (the design in the code); the two other designs are rebuilt from the same
 * requests (bench/tool-designs.ts). Per design: model round trips, prompt tokens per request (o200k_base), and the
 * share of the prompt that is a stable prefix a provider can cache across the session.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configSchema } from "../src/config.js";
import { Gateway } from "../src/app.js";
import { ToolCatalog } from "../src/handlers/catalog.js";
import { createLogger } from "../src/infra/log.js";
import { startFakeOpenAI } from "../test/fakes/openai-server.js";
import { CONVERSATIONS, scriptedModel, type ScriptedConversation } from "../test/fakes/scripted-model.js";
import { DESIGN_LABELS, measureDesign, type Design, type Recorded } from "./tool-designs.js";
import type { BenchResult } from "./types.js";

const DESIGNS: Design[] = ["today", "compact", "picked"];

async function record(conversation: ScriptedConversation): Promise<Recorded> {
  const fake = await startFakeOpenAI();
  fake.respondWith(scriptedModel(conversation));
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-tools-bench-"));
  const config = configSchema.parse({
    dataDir,
    http: { port: 0 },
    llm: { baseUrl: fake.url, model: "fake-model", apiKey: "sk-bench", maxRetries: 0 },
    log: { level: "silent" },
  });
  const gateway = await Gateway.create(config, { log: createLogger({ level: "silent", secrets: [] }) });
  const { url } = await gateway.start();
  try {
    for (const [index, turn] of conversation.turns.entries()) {
      const response = await fetch(`${url}/api/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ chatId: "bench", userId: "alice", text: turn.text, messageId: `m${index}` }),
      });
      const body = (await response.json()) as { outcome?: string };
      if (body.outcome !== "answered") throw new Error(`${conversation.name}, turn ${index + 1}: ${JSON.stringify(body)}`);
    }
    return { requests: [...fake.requests], registry: gateway.registry, catalog: new ToolCatalog(gateway.registry) };
  } finally {
    await gateway.stop();
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / Math.max(values.length, 1);

export async function run(): Promise<BenchResult> {
  const rows: BenchResult["rows"] = [];
  for (const conversation of CONVERSATIONS) {
    const recorded = await record(conversation);
    for (const design of DESIGNS) {
      const measure = measureDesign(design, recorded);
      const average = mean(measure.promptTokens);
      rows.push({
        conversation: conversation.name,
        design: DESIGN_LABELS[design],
        "round trips": design === "picked" ? `${measure.roundTrips} (gateway: ${recorded.requests.length})` : measure.roundTrips,
        "prompt tokens per request": measure.promptTokens.join(", "),
        "total": measure.promptTokens.reduce((a, b) => a + b, 0),
        "stable prefix": `${measure.stableTokens} (${((100 * measure.stableTokens) / average).toFixed(0)}% of the mean request)`,
        // What a provider that caches the stable prefix reads afresh, summed over the requests.
        "total past the prefix": measure.promptTokens.reduce((sum, tokens) => sum + tokens - measure.stableTokens, 0),
      });
    }
  }
  return {
    name: "tools",
    workload:
      "3 scripted conversations (reminder; write + 'send me that file'; skill script) through the gateway, " +
      "owner in a WebChat DM; tokens counted with o200k_base over tools JSON + system + messages; stable prefix = " +
      "tools + system text identical on every request of the conversation",
    rows,
  };
}
