import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { parseEnv } from "node:util";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { Gateway } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import type { Locale } from "../../src/core/locales.js";
import { runScripted } from "../../src/setup/scripted.js";
import { runWizard } from "../../src/setup/wizard.js";
import { startFakeOpenAI, type FakeOpenAI } from "../fakes/openai-server.js";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram/server.js";
import { alice, directChat, messageUpdate } from "../fakes/telegram/updates.js";
import { captureLog } from "../helpers/captured-log.js";

const RIGHT_KEY = "sk-setup-right-key-0123";
const WRONG_KEY = "sk-setup-wrong-key-4567";
const [UP, RIGHT, ENTER, SPACE] = ["\x1b[A", "\x1b[C", "\r", " "];

let fake: FakeOpenAI;
let tg: FakeTelegram;
let dir: string;
let configPath: string;
const dirs: string[] = [];
beforeEach(async () => {
  fake = await startFakeOpenAI();
  fake.respondWith((request) =>
    request.headers.authorization === `Bearer ${RIGHT_KEY}` ? { text: "pong" } : { status: 401, body: { error: { message: "Incorrect API key provided" } } },
  );
  tg = await startFakeTelegram();
  dir = await mkdtemp(join(tmpdir(), "switchboard-setup-test-"));
  dirs.push(dir);
  configPath = join(dir, "switchboard.yaml");
  // What the user had: the test's endpoints and a free port; the wizard keeps it and adds to it.
  await writeFile(configPath, `# my settings\ndataDir: ${join(dir, "data")}\nhttp:\n  port: 0\nchannels:\n  telegram:\n    apiRoot: ${tg.url}\n`);
});
afterEach(async () => {
  await fake.close();
  await tg.close();
});
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** The wizard on piped streams: `expect` waits for text to appear after what was already matched, then types. */
function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let screen = "";
  let seen = 0;
  const waiters = new Set<() => void>();
  output.on("data", (chunk: Buffer) => {
    screen += chunk.toString();
    for (const w of waiters) w();
  });
  return {
    input,
    output,
    get screen() {
      return screen;
    },
    async type(prompt: RegExp, keys: string): Promise<void> {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${prompt} on the screen; it shows:\n${screen.slice(seen)}`)), 10_000);
        const check = () => {
          const match = prompt.exec(screen.slice(seen));
          if (!match) return;
          seen += match.index + match[0].length;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        waiters.add(check);
        check();
      });
      input.write(keys);
    },
  };
}

describe("switchboard setup, interactive", () => {
  it("catches a wrong key live, pairs the owner from Telegram, writes files that start a gateway that answers, and never shows a secret", async () => {
    const term = terminal();
    const run = runWizard({ configPath, input: term.input, output: term.output, log: captureLog([]).log });
    await term.type(/Model provider/, UP + ENTER); // the last choice: another OpenAI-compatible endpoint
    await term.type(/Base URL/, `${fake.url}${ENTER}`);
    await term.type(/Model/, `fake-model${ENTER}`);
    await term.type(/API key/, `${WRONG_KEY}${ENTER}`);
    await term.type(/Try again\?/, ENTER);
    await term.type(/Model provider/, ENTER);
    await term.type(/Base URL/, ENTER);
    await term.type(/Model/, ENTER);
    await term.type(/API key/, `${RIGHT_KEY}${ENTER}`);
    await term.type(/Platforms/, SPACE + ENTER); // telegram, the first
    await term.type(/TELEGRAM_BOT_TOKEN/, `${tg.token}${ENTER}`);
    await term.type(/Pair yourself from a chat/, ENTER);
    await term.type(/Send \/start to your bot on telegram now/, "");
    tg.addUpdate(messageUpdate(directChat(alice), { text: "/start" }));
    expect(await run).toEqual({ configPath, envPath: join(dir, ".env") });

    expect(term.screen).toContain("FAILED: openai-compatible fake-model: credentials refused: Incorrect API key provided");
    expect(term.screen).toContain("@switchboard_test_bot");
    for (const secret of [RIGHT_KEY, WRONG_KEY, tg.token]) expect(term.screen).not.toContain(secret);
    expect(tg.sent.map((m) => m.text)).toContain("You are this bot's owner now. Finish the set-up, then start the gateway.");

    const envFile = join(dir, ".env");
    expect((await stat(envFile)).mode & 0o777).toBe(0o600);
    const env = parseEnv(await readFile(envFile, "utf8"));
    expect(env).toEqual({ LLM_API_KEY: RIGHT_KEY, TELEGRAM_BOT_TOKEN: tg.token });
    const yamlText = await readFile(configPath, "utf8");
    expect(yamlText).toContain("# my settings");
    expect(yamlText).not.toContain(RIGHT_KEY);
    expect(parseYaml(yamlText)).toMatchObject({ llm: { baseUrl: fake.url, model: "fake-model" }, access: { owners: [`telegram:${alice.id}`] } });

    const config = loadConfig({ configPath, env: { ...env } });
    const gateway = await Gateway.create(config, { log: captureLog([]).log });
    try {
      await gateway.start();
      const before = tg.sent.length;
      tg.addUpdate(messageUpdate(directChat(alice), { text: "hello" }));
      await tg.waitFor(() => tg.sent.slice(before).find((m) => m.text === "pong"));
    } finally {
      await gateway.stop();
    }
  });

  it("re-running offers what is there: Enter keeps the key and the token", async () => {
    await writeFile(join(dir, ".env"), `LLM_API_KEY=${RIGHT_KEY}\nTELEGRAM_BOT_TOKEN=${tg.token}\nOTHER=kept\n`);
    await writeFile(configPath, `${await readFile(configPath, "utf8")}llm:\n  baseUrl: ${fake.url}\n  model: fake-model\n`);
    const term = terminal();
    const run = runWizard({ configPath, input: term.input, output: term.output, log: captureLog([]).log });
    await term.type(/Model provider/, ENTER);
    await term.type(/Base URL/, ENTER);
    await term.type(/Model/, ENTER);
    await term.type(/API key \(Enter keeps the one in .env\)/, ENTER);
    await term.type(/Platforms/, ENTER); // telegram is picked already
    await term.type(/TELEGRAM_BOT_TOKEN \(Enter keeps/, ENTER);
    await term.type(/Pair yourself from a chat/, UP + ENTER); // later
    await run;
    expect(parseEnv(await readFile(join(dir, ".env"), "utf8"))).toEqual({ LLM_API_KEY: RIGHT_KEY, TELEGRAM_BOT_TOKEN: tg.token, OTHER: "kept" });
  });
});

describe("switchboard setup, interactive, in Chinese", () => {
  /** From the provider to the platforms (none), in Chinese; a second run keeps what the first wrote. */
  async function answerModel(term: ReturnType<typeof terminal>, again = false): Promise<void> {
    await term.type(/模型服务商/, again ? ENTER : UP + ENTER);
    await term.type(/Base URL/, again ? ENTER : `${fake.url}${ENTER}`);
    await term.type(/模型\n/, again ? ENTER : `fake-model${ENTER}`);
    await term.type(again ? /API 密钥（回车保留 .env 中已有的）/ : /API 密钥/, again ? ENTER : `${RIGHT_KEY}${ENTER}`);
    await term.type(/平台/, ENTER);
  }

  it("declining Chinese as the default language writes none; a configuration that has one is not asked", async () => {
    const term = terminal();
    const run = runWizard({ configPath, input: term.input, output: term.output, log: captureLog([]).log, locale: "zh-Hans" });
    await answerModel(term);
    await term.type(/机器人默认用中文回答？/, RIGHT + ENTER);
    await run;
    expect(term.screen).toContain("已写入");
    expect(parseYaml(await readFile(configPath, "utf8"))).not.toHaveProperty("i18n");

    await writeFile(configPath, `${await readFile(configPath, "utf8")}i18n:\n  default: en\n`);
    const again = terminal();
    const second = runWizard({ configPath, input: again.input, output: again.output, log: captureLog([]).log, locale: "zh-Hans" });
    await answerModel(again, true);
    await second;
    expect(again.screen).toContain("已写入");
    expect(again.screen).not.toContain("机器人默认用中文回答");
    expect(parseYaml(await readFile(configPath, "utf8"))).toMatchObject({ i18n: { default: "en" } });
  });
});

describe("switchboard setup --yes", () => {
  const scripted = (env: NodeJS.ProcessEnv, locale: Locale = "en") =>
    runScripted({
      configPath,
      provider: "custom",
      baseUrl: fake.url,
      model: "fake-model",
      llmKeyEnv: "MY_LLM_KEY",
      credentialEnvs: new Map([["telegram", { TELEGRAM_BOT_TOKEN: "MY_TG_TOKEN" }]]),
      owners: ["telegram:42"],
      check: true,
      env,
      locale,
    });

  it("checks live and writes the files from flags and variables", async () => {
    const lines = await scripted({ MY_LLM_KEY: RIGHT_KEY, MY_TG_TOKEN: tg.token });
    expect(lines.join("\n")).toMatch(/^OK {3}llm: .*answered/m);
    expect(lines.join("\n")).not.toContain(RIGHT_KEY);
    expect(parseEnv(await readFile(join(dir, ".env"), "utf8"))).toEqual({ LLM_API_KEY: RIGHT_KEY, TELEGRAM_BOT_TOKEN: tg.token });
    expect(parseYaml(await readFile(configPath, "utf8"))).toMatchObject({ access: { owners: ["telegram:42"] } });
  });

  it("writes nothing when a check fails, or a variable is missing", async () => {
    await expect(scripted({ MY_LLM_KEY: WRONG_KEY, MY_TG_TOKEN: tg.token })).rejects.toThrow(/FAIL llm: .*\n[^]*nothing was written/);
    await expect(scripted({ MY_LLM_KEY: RIGHT_KEY })).rejects.toThrow("the variable MY_TG_TOKEN is not set");
    await expect(scripted({ MY_LLM_KEY: RIGHT_KEY }, "zh-Hans")).rejects.toThrow("--telegram 的凭据：环境变量 MY_TG_TOKEN 未设置");
    await expect(stat(join(dir, ".env"))).rejects.toThrow(/ENOENT/);
  });
});
