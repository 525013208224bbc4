/**
 * The built gateway, as `npm start` and the Docker image run it: scripts/bundle.mjs builds it into a folder of its
 * own inside the package, and that build starts, knows its version, finds its shipped files (the configuration's
 * defaults, the bundled skills, the chat page), answers a Telegram message through a tool call with the model
 * behind either provider, answers on Discord and calls MCP tools with those SDKs bundled, and reads a reminder
 * written in Chinese; it loads the browser's and the page readers' packages only when they are used. What the bundle could break is what runs bundled: a package that looks for its own files or
 * checks a class by name, a path taken relative to a module's file, the regular expressions the build escapes. The
 * build refuses an output folder outside the package.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { decode } from "@jridgewell/sourcemap-codec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../src/config.js";
import { messagePayload, startFakeDiscord, user, type FakeDiscord } from "../fakes/discord/index.js";
import { startFakeOpenAI, toolResultsOf, type FakeOpenAI } from "../fakes/openai-server.js";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram/server.js";
import { alice, directChat, text } from "../fakes/telegram/updates.js";
import { spawnGateway, type GatewayProcess } from "../helpers/gateway-process.js";
import { eventually } from "../helpers/wait.js";
import { everythingStdio, startEverythingHttp, type HttpServerProcess } from "../mcp/helpers.js";

const run = promisify(execFile);

type Provider = "openai-compatible" | "anthropic";

describe("the bundled build", () => {
  let outDir: string | undefined;
  let llm: FakeOpenAI;
  const telegrams: FakeTelegram[] = [];
  const discords: FakeDiscord[] = [];
  const mcpServers: HttpServerProcess[] = [];
  const gateways: GatewayProcess[] = [];
  const dataDirs: string[] = [];

  beforeAll(async () => {
    // Inside the package, as dist/ is: the build finds config/ and public/ above it, its packages in node_modules.
    const cache = join("node_modules", ".cache");
    await mkdir(cache, { recursive: true });
    outDir = await mkdtemp(join(cache, "switchboard-bundle-test-"));
    await run(process.execPath, ["scripts/bundle.mjs", outDir]);
    llm = await startFakeOpenAI();
  }, 60_000);

  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop("SIGTERM")));
    await llm?.close();
    await Promise.all([...telegrams, ...discords, ...mcpServers].map((server) => server.close()));
    await Promise.all([outDir ?? [], ...dataDirs].flat().map((dir) => rm(dir, { recursive: true, force: true })));
  });

  /** A gateway from the build on its own data folder, with the fake LLM behind `provider`; each test stops its own. */
  async function spawnBuilt(provider: Provider, config: ConfigInput): Promise<GatewayProcess> {
    const dataDir = await mkdtemp(join(tmpdir(), "switchboard-bundle-"));
    dataDirs.push(dataDir);
    const llmConfig = { provider, baseUrl: llm.url, model: "fake-model", apiKey: "sk-bundle-test" };
    const gateway = await spawnGateway(dataDir, { dataDir, http: { port: 0 }, llm: llmConfig, memory: { enabled: false }, ...config }, [
      join(outDir!, "cli.js"),
    ]);
    gateways.push(gateway);
    return gateway;
  }

  /** On its own fake Telegram too: a new gateway would be handed the updates an earlier one left unconfirmed. */
  async function startBuilt(provider: Provider, config: ConfigInput = {}): Promise<{ url: string; gateway: GatewayProcess; telegram: FakeTelegram }> {
    const telegram = await startFakeTelegram();
    telegrams.push(telegram);
    const gateway = await spawnBuilt(provider, {
      access: { owners: [`telegram:${alice.id}`] },
      channels: { telegram: { token: telegram.token, apiRoot: telegram.url } },
      ...config,
    });
    const url = await gateway.url(30_000);
    await gateway.waitForLog((line) => line.msg === "skills registered" && line.count === 2, "the two bundled skills", 5_000);
    return { url, gateway, telegram };
  }

  /** The build's JavaScript files, relative to its folder. */
  async function builtFiles(): Promise<string[]> {
    const entries = await readdir(outDir!, { recursive: true });
    return entries.filter((entry) => entry.endsWith(".js"));
  }

  /** "file: package" for each package a file of the build imports from node_modules whose name `names` matches. */
  async function filesImporting(names: RegExp): Promise<string[]> {
    const found: string[] = [];
    for (const file of await builtFiles()) {
      const code = await readFile(join(outDir!, file), "utf8");
      for (const [, name] of code.matchAll(/(?:from|import\(?|require\()"([^"./][^"]*)"/g)) if (names.test(name!)) found.push(`${file}: ${name}`);
    }
    return found;
  }

  /**
   * The folders in node_modules the build took `pkg` from, by its source maps: one, the top-level one, when every
   * bundled package that imports it shares it (npm nests a second version under a package that needs another).
   */
  async function bundledCopiesOf(pkg: string): Promise<string[]> {
    const folders = new Set<string>();
    const copy = new RegExp(`^(node_modules/(?:.+/node_modules/)?${pkg})/`);
    for (const file of await builtFiles()) {
      const map = join(outDir!, `${file}.map`);
      const { sources } = JSON.parse(await readFile(map, "utf8")) as { sources: string[] };
      for (const source of sources) {
        // Relative to the map's folder; the build's folder is itself under node_modules/.cache.
        const folder = copy.exec(relative(process.cwd(), resolve(dirname(map), source)))?.[1];
        if (folder) folders.add(folder);
      }
    }
    return [...folders];
  }

  /**
   * The packages the build's command loads at start: what it imports statically, directly or through its chunks,
   * and through the commands module, which the command imports as soon as its heap settings are made.
   */
  async function packagesLoadedAtStart(): Promise<Set<string>> {
    const packages = new Set<string>();
    const seen = new Set<string>();
    const visit = async (file: string): Promise<void> => {
      if (seen.has(file)) return;
      seen.add(file);
      const code = await readFile(join(outDir!, file), "utf8");
      // Static imports only (`import{a}from"x"`, `import "x"`); `import("x")` loads when that code first runs.
      for (const [, specifier] of code.matchAll(/(?:^|[;\n])\s*import\s*(?:[^"();]*?from\s*)?"([^"]+)"/g)) {
        if (specifier!.startsWith(".")) await visit(join(dirname(file), specifier!));
        else packages.add(specifier!);
      }
    };
    await visit("cli.js");
    const commands = /await import\("(\.\/chunks\/cli-commands-[^"]+)"\)/.exec(await readFile(join(outDir!, "cli.js"), "utf8"))?.[1];
    expect(commands).toBeDefined();
    await visit(commands!);
    return packages;
  }

  it("loads the browser's and the page readers' packages when they are first used, not at start", async () => {
    const atStart = await packagesLoadedAtStart();
    expect(atStart).toContain("better-sqlite3");
    expect([...atStart].filter((name) => /^(?:playwright-core|linkedom|@mozilla\/readability|turndown|unpdf)$/.test(name))).toEqual([]);
  });

  it("prints the package's version", async () => {
    const { version } = JSON.parse(await readFile("package.json", "utf8")) as { version: string };
    const { stdout } = await run(process.execPath, [join(outDir!, "cli.js"), "--version"]);
    expect(stdout.trim()).toBe(version);
  });

  it("refuses to build into a folder outside the package, which it would empty first", async () => {
    const outside = await mkdtemp(join(tmpdir(), "switchboard-bundle-outside-"));
    dataDirs.push(outside);
    const kept = join(outside, "kept.txt");
    await writeFile(kept, "still here");
    await expect(run(process.execPath, ["scripts/bundle.mjs", outside])).rejects.toMatchObject({
      stderr: expect.stringContaining(`bundle: ${outside} is not a folder inside`),
    });
    expect(await readFile(kept, "utf8")).toBe("still here");
  });

  it("maps code after an escaped regular expression back to its line in src/", async () => {
    let name = "";
    let chunk = "";
    for (const file of await builtFiles()) {
      [name, chunk] = [file, await readFile(join(outDir!, file), "utf8")];
      if (chunk.includes("CHINESE_WEEKDAYS.indexOf")) break;
    }
    expect(chunk).toContain("\\u6bcf"); // the reminder parser's 每, escaped in the same chunk
    const at = chunk.indexOf("CHINESE_WEEKDAYS.indexOf");
    expect(at).toBeGreaterThan(-1);
    const line = chunk.slice(0, at).split("\n").length - 1;
    const column = at - (chunk.lastIndexOf("\n", at) + 1);

    const map = JSON.parse(await readFile(join(outDir!, `${name}.map`), "utf8")) as { sources: string[]; mappings: string };
    const segment = decode(map.mappings)[line]!.findLast(([generated]) => generated <= column)!;
    const [, source, originalLine] = segment as [number, number, number, number];
    expect(map.sources[source]).toMatch(/src\/scheduler\/natural\.ts$/);
    const sourceLines = (await readFile("src/scheduler/natural.ts", "utf8")).split("\n");
    expect(sourceLines[originalLine]).toContain("CHINESE_WEEKDAYS.indexOf");
  });

  for (const provider of ["openai-compatible", "anthropic"] as const) {
    it(`starts and answers a Telegram message through a tool call (${provider})`, { timeout: 60_000 }, async () => {
      const { url, gateway, telegram } = await startBuilt(provider);
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<html");

      const requestsBefore = llm.requests.length;
      llm.enqueue({ toolCalls: [{ name: "get_skill_info", arguments: { skill_name: "date-helper" } }] });
      llm.respondWith(() => {
        const result = JSON.stringify(llm.lastToolResults().at(-1)?.content ?? "");
        return { text: `read it (${provider}): ${result.includes("datetime.mjs") ? "has the skill's text" : "no skill text"}` };
      });
      telegram.addUpdate(text(directChat(alice), `what time is it? (${provider})`));

      const reply = await eventually(
        () => telegram.sent.find((m) => m.text?.startsWith(`read it (${provider})`) === true),
        `the ${provider} reply on Telegram`,
        30_000,
      );
      expect(reply.text).toBe(`read it (${provider}): has the skill's text`);
      expect(llm.requests.slice(requestsBefore).map((r) => r.path)).toEqual(
        provider === "anthropic" ? ["/v1/messages", "/v1/messages"] : ["/v1/chat/completions", "/v1/chat/completions"],
      );
      await gateway.stop("SIGTERM");
    });
  }

  it("answers a Discord mention, discord.js bundled with the start path's undici and ws", { timeout: 60_000 }, async () => {
    // Loaded from node_modules, or bundled from a nested copy, they would bring their own undici and ws.
    expect(await filesImporting(/^(?:discord\.js|@discordjs\/.+|undici|ws)$/)).toEqual([]);
    expect(await bundledCopiesOf("undici")).toEqual(["node_modules/undici"]);
    expect(await bundledCopiesOf("ws")).toEqual(["node_modules/ws"]);
    const discord = await startFakeDiscord();
    discords.push(discord);
    const gateway = await spawnBuilt("openai-compatible", {
      access: { dmPolicy: "open", groups: [{ guild: `discord:${discord.world.guild.id}` }] },
      // Not streamed: the reply is one message with its whole text.
      channels: { discord: { token: discord.token, apiUrl: discord.apiUrl, streaming: "off" } },
    });
    await gateway.waitForLog((line) => line.msg === "connected to the Discord gateway", "the Discord connection", 30_000);
    llm.respondWith(() => ({ text: "answered on Discord" }));
    const question = messagePayload({
      channelId: discord.world.general.id,
      guildId: discord.world.guild.id,
      author: user("alice"),
      content: `<@${discord.bot.id}> are you there?`,
      mentions: [discord.bot],
    });
    discord.dispatch("MESSAGE_CREATE", question);

    const reply = await eventually(() => discord.messages.find((m) => m.payload.content === "answered on Discord"), "the reply on Discord", 30_000);
    expect(reply).toMatchObject({ channelId: discord.world.general.id, payload: { message_reference: { message_id: question.id } } });
    await gateway.stop("SIGTERM");
  });

  it("calls MCP tools over stdio, Streamable HTTP and HTTP+SSE and reports one that cannot start, the MCP SDK bundled with the start path's zod", { timeout: 60_000 }, async () => {
    expect(await filesImporting(/^(?:@modelcontextprotocol\/sdk|zod)(?:\/.*)?$/)).toEqual([]);
    expect(await bundledCopiesOf("zod")).toEqual(["node_modules/zod"]);
    // One after the other, each kept for afterAll as soon as it runs.
    const remote = await startEverythingHttp("streamableHttp");
    mcpServers.push(remote);
    const sse = await startEverythingHttp("sse");
    mcpServers.push(sse);
    const servers = ["local", "remote", "sse"];
    const { gateway, telegram } = await startBuilt("openai-compatible", {
      mcp: {
        servers: {
          local: everythingStdio(),
          remote: { url: remote.url, transport: "streamable-http" },
          sse: { url: sse.url, transport: "sse" },
          // A program that is not there: the bundled process runner reports it, the other servers carry on.
          missing: { command: join(tmpdir(), "no-such-mcp-server") },
        },
      },
    });
    for (const server of servers) {
      await gateway.waitForLog((line) => line.msg === "MCP server connected" && line.mcpServer === server, `MCP server ${server}`, 30_000);
    }
    const missing = await gateway.waitForLog(
      (line) => line.msg === "MCP server failed to connect" && line.mcpServer === "missing",
      "the missing MCP server's failure",
      30_000,
    );
    expect(String(missing.error)).toContain("no-such-mcp-server");
    llm.respondWith((request) => {
      const results = toolResultsOf(request);
      if (results.length === 0) {
        return {
          toolCalls: servers.map((server) => ({ name: "call_mcp_tool", arguments: { server, tool_name: "echo", arguments: { message: `hi ${server}` } } })),
        };
      }
      return { text: `tools said: ${results.map((result) => JSON.stringify(result.content)).join(" / ")}` };
    });
    telegram.addUpdate(text(directChat(alice), "echo on every server"));

    const reply = await eventually(() => telegram.sent.find((m) => m.text?.startsWith("tools said:") === true), "the reply quoting the tools", 30_000);
    for (const server of servers) expect(reply.text).toContain(`Echo: hi ${server}`);
    await gateway.stop("SIGTERM");
  });

  it("sets a reminder written in Chinese (the reminder parser's expressions are escaped in the build)", { timeout: 60_000 }, async () => {
    const { gateway, telegram } = await startBuilt("openai-compatible");
    telegram.addUpdate(text(directChat(alice), "/remind 每天早上9点 喝水"));
    const reply = await eventually(() => telegram.sent.find((m) => m.text?.includes("/cancel") === true), "the reminder's confirmation", 30_000);
    // Every day at 9: read by the Chinese pattern (a one-off reminder would say "is set for").
    expect(reply.text).toMatch(/^Reminder .+喝水.+ runs .+; the first run is /);
    await gateway.stop("SIGTERM");
  });
});
