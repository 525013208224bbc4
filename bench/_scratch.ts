import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { countTokens } from "gpt-tokenizer";
import { configSchema } from "../src/config.js";
import { Gateway } from "../src/app.js";
import { ToolCatalog } from "../src/handlers/catalog.js";
import { createLogger } from "../src/infra/log.js";
const dataDir = await mkdtemp(join(tmpdir(), "sb-"));
const config = configSchema.parse({
  dataDir, http: { port: 0 },
  llm: { baseUrl: "http://127.0.0.1:9/v1", model: "fake-model", apiKey: "sk", maxRetries: 0 },
  log: { level: "silent" },
  browser: { enabled: true }, desktop: { enabled: true }, images: { baseUrl: "http://127.0.0.1:9/v1" }, tts: { baseUrl: "http://127.0.0.1:9/v1" },
  memory: { enabled: true },
});
const gw = await Gateway.create(config, { log: createLogger({ level: "silent", secrets: [] }) });
const cat = new ToolCatalog(gw.registry);
let tf = 0, tc = 0;
for (const t of gw.registry.listTools()) {
  const full = countTokens(JSON.stringify({ type: "function", function: { name: t.name, description: t.description, parameters: cat.jsonSchema(t.name) } }));
  const compact = countTokens(JSON.stringify({ type: "function", function: { name: t.name, description: t.shortDescription, parameters: cat.compactSchema(t.name) } }));
  const min = countTokens(JSON.stringify({ type: "function", function: { name: t.name, description: t.shortDescription, parameters: {type:"object"} } }));
  tf += full; tc += compact;
  console.log(t.category.padEnd(14), t.name.padEnd(26), t.risk.padEnd(10), full, compact, min, "|", t.shortDescription);
}
console.log("total full", tf, "compact", tc, "n", gw.registry.listTools().length);
process.exit(0);
