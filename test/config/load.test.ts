import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { problemsOf } from "../helpers/config-problems.js";
import { enabledChannels, loadConfig } from "../../src/config.js";
import { configSchema } from "../../src/config.js";

const dir = mkdtempSync(join(tmpdir(), "sb-config-"));

function userFile(name: string, yaml: string): string {
  const path = join(dir, name);
  writeFileSync(path, yaml);
  return path;
}

describe("loadConfig", () => {
  it("config/default.yaml documents exactly the schema's defaults", () => {
    const fromFile = loadConfig({ env: {}, cwd: "/srv" });
    const fromSchema = configSchema.parse({});
    expect(fromFile).toEqual({ ...fromSchema, dataDir: resolve("/srv", fromSchema.dataDir) });
  });

  it("layers the user file over the defaults and the environment over both", () => {
    const path = userFile("layers.yaml", "llm:\n  model: from-file\n  baseUrl: http://file.example/v1\nhttp:\n  port: 9000\n");
    const config = loadConfig({ configPath: path, env: { LLM_MODEL: "from-env", SWITCHBOARD_PORT: "9100" } });
    expect(config.llm.model).toBe("from-env");
    expect(config.llm.baseUrl).toBe("http://file.example/v1");
    expect(config.http.port).toBe(9100);
    expect(config.llm.maxSteps).toBe(12);
  });

  it("reads the user file from SWITCHBOARD_CONFIG and treats empty variables as unset", () => {
    const path = userFile("env-path.yaml", "agent:\n  name: Envy\n");
    const config = loadConfig({ env: { SWITCHBOARD_CONFIG: path, LLM_MODEL: "" } });
    expect(config.agent.name).toBe("Envy");
    expect(config.llm.model).toBeNull();
  });

  it("enables a channel when its credentials are present, or explicitly", () => {
    expect(enabledChannels(loadConfig({ env: {} })).map((m) => m.name)).toEqual(["web"]);
    const config = loadConfig({ env: { TELEGRAM_BOT_TOKEN: "123:abc", FEISHU_APP_ID: "cli_x", DISCORD_BOT_TOKEN: "d.t" } });
    // Feishu needs both the id and the secret.
    expect(enabledChannels(config).map((m) => m.name)).toEqual(["telegram", "discord", "web"]);
    const off = userFile("off.yaml", "channels:\n  telegram:\n    enabled: false\n  web:\n    enabled: false\n");
    expect(enabledChannels(loadConfig({ configPath: off, env: { TELEGRAM_BOT_TOKEN: "123:abc" } }))).toEqual([]);
  });

  const badConfigs: Array<{ name: string; yaml?: string; env?: Record<string, string>; expected: RegExp[] }> = [
    { name: "unknown key", yaml: "llm:\n  modle: gpt\n", expected: [/^llm\.modle: unknown setting; did you mean llm\.model\?/] },
    { name: "unknown top-level key", yaml: "telegramm: {}\n", expected: [/^telegramm: unknown setting; check the spelling/] },
    {
      name: "value outside an enum",
      yaml: "llm:\n  provider: gpt\n",
      expected: [/^llm\.provider = "gpt": expected one of "openai-compatible", "anthropic"$/],
    },
    { name: "wrong type", yaml: "http:\n  port: eighty\n", expected: [/^http\.port = "eighty": expected number$/] },
    { name: "number out of range", yaml: "http:\n  port: 70000\n", expected: [/^http\.port = 70000: must be at most 65535$/] },
    {
      name: "bad number from the environment",
      env: { SWITCHBOARD_PORT: "80a" },
      expected: [/^http\.port \(from SWITCHBOARD_PORT\) = "80a": expected number$/],
    },
    { name: "malformed URL", env: { LLM_BASE_URL: "localhost:11434" }, expected: [/^llm\.baseUrl \(from LLM_BASE_URL\) = "localhost:11434"/] },
    { name: "unsupported store", env: { REDIS_URL: "mysql://db" }, expected: [/^store\.url \(from REDIS_URL\) = "mysql:\/\/db": must start with sqlite:\/\//] },
    {
      name: "public bind without a token",
      env: { SWITCHBOARD_HOST: "0.0.0.0" },
      expected: [/^http\.host = "0\.0\.0\.0": binding beyond loopback requires http\.token \(set SWITCHBOARD_TOKEN\)/],
    },
    {
      name: "channel enabled without credentials",
      yaml: "channels:\n  feishu:\n    enabled: true\n",
      expected: [/channels\.feishu\.appId is not set \(set FEISHU_APP_ID\)/, /channels\.feishu\.appSecret is not set \(set FEISHU_APP_SECRET\)/],
    },
    { name: "several problems at once", yaml: "log:\n  level: loud\nsessions:\n  scope: galaxy\n", expected: [/^log\.level = "loud"/, /^sessions\.scope = "galaxy"/] },
    {
      name: "unknown timezone",
      yaml: "agent:\n  timezone: Mars/Olympus\n",
      expected: [/^agent\.timezone = "Mars\/Olympus": expected an IANA timezone/],
    },
    { name: "broken YAML", yaml: "llm: [unclosed\n", expected: [/is not valid YAML/] },
    { name: "not a mapping", yaml: "- a\n- b\n", expected: [/must hold a mapping of settings/] },
  ];

  it.each(badConfigs)("refuses a config with $name, one line per problem", ({ yaml, env, expected }) => {
    const configPath = yaml === undefined ? undefined : userFile(`bad-${Math.random()}.yaml`, yaml);
    const problems = problemsOf(() => loadConfig({ configPath, env: env ?? {} }));
    expect(problems).toHaveLength(expected.length);
    expected.forEach((pattern, i) => expect(problems[i]).toMatch(pattern));
  });

  it("names a missing file", () => {
    expect(problemsOf(() => loadConfig({ configPath: join(dir, "nope.yaml"), env: {} }))).toEqual([
      `cannot read config file ${join(dir, "nope.yaml")}: ENOENT`,
    ]);
  });

  it("never prints a secret's value in an error", () => {
    const path = userFile("secret.yaml", "llm:\n  apiKey: 123456789\n");
    const problems = problemsOf(() => loadConfig({ configPath: path, env: {} }));
    expect(problems).toEqual(["llm.apiKey = [REDACTED]: expected string"]);
  });
});
