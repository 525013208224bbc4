/** The WeCom, DingTalk and QQ settings from the environment: on when the credentials are there, off by `enabled: false`. */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collectSecrets, enabledChannels, loadConfig } from "../../src/config.js";

const ENV = {
  WECOM_CORP_ID: "ww0123",
  WECOM_CORP_SECRET: "wecom-secret",
  WECOM_AGENT_ID: "1000002",
  WECOM_TOKEN: "wecom-token",
  WECOM_AES_KEY: "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
  WECOM_API_URL: "http://127.0.0.1:1",
  DINGTALK_CLIENT_ID: "dingclient",
  DINGTALK_CLIENT_SECRET: "ding-secret",
  DINGTALK_API_URL: "http://127.0.0.1:2",
  DINGTALK_OAPI_URL: "http://127.0.0.1:3",
  QQ_APP_ID: "102030405",
  QQ_APP_SECRET: "qq-secret",
  QQ_API_URL: "http://127.0.0.1:4",
  QQ_TOKEN_URL: "http://127.0.0.1:5/token",
};

async function load(yaml: string, env: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), "switchboard-cn-config-"));
  await writeFile(join(dir, "config.yaml"), yaml);
  return loadConfig({ configPath: join(dir, "config.yaml"), env: { SWITCHBOARD_DATA_DIR: dir, ...env }, cwd: dir });
}

const names = (config: Awaited<ReturnType<typeof load>>) => enabledChannels(config).map((m) => m.name);

describe("the WeCom, DingTalk and QQ settings", () => {
  it("are read from the environment variables the issue names, and turn the channels on", async () => {
    const config = await load("{}", ENV);
    expect(names(config)).toEqual(expect.arrayContaining(["wecom", "dingtalk", "qq"]));
    const channels = config.channels as Record<string, Record<string, unknown>>;
    expect(channels.wecom).toMatchObject({ corpId: "ww0123", agentId: "1000002", apiUrl: "http://127.0.0.1:1" });
    expect(channels.dingtalk).toMatchObject({ clientId: "dingclient", robotCode: null, apiUrl: "http://127.0.0.1:2", oapiUrl: "http://127.0.0.1:3" });
    expect(channels.qq).toMatchObject({ appId: "102030405", apiUrl: "http://127.0.0.1:4", tokenUrl: "http://127.0.0.1:5/token", sandbox: false });
    expect(collectSecrets(config)).toEqual(expect.arrayContaining(["wecom-secret", "wecom-token", ENV.WECOM_AES_KEY, "ding-secret", "qq-secret"]));
  });

  it("are off without their credentials, and off with enabled: false although the credentials are there", async () => {
    const bare = names(await load("{}", {}));
    for (const name of ["wecom", "dingtalk", "qq"]) expect(bare).not.toContain(name);
    const off = await load("channels:\n  wecom: { enabled: false }\n  dingtalk: { enabled: false }\n  qq: { enabled: false }\n", ENV);
    expect(names(off).filter((n) => ["wecom", "dingtalk", "qq"].includes(n))).toEqual([]);
  });

  it("refuse enabled: true without a credential, naming its variable", async () => {
    await expect(load("channels:\n  qq: { enabled: true }\n", {})).rejects.toThrow("QQ_APP_ID");
  });
});
