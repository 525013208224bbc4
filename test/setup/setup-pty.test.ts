/**
 * `switchboard setup` as a user runs it: the built command in a real pseudo-terminal (raw keys, masked input, the
 * terminal's own echo and size), against the fake OpenAI-compatible model and the fake Telegram Bot API. The
 * wizard from nothing to a gateway that answers, a second run over what it wrote, cancelling at each kind of
 * step, and `setup --yes` with its live checks. No secret may reach the terminal.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseEnv, promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { startFakeOpenAI, type FakeOpenAI } from "../fakes/openai-server.js";
import { startFakeTelegram } from "../fakes/telegram/server.js";
import { alice, directChat, messageUpdate } from "../fakes/telegram/updates.js";
import { buildGateway, type BuiltGateway } from "../helpers/built-gateway.js";
import { startGateway } from "../helpers/gateway-process.js";
import { processesMatching } from "../helpers/processes.js";
import { ptyAvailable, spawnPty, type Pty } from "../helpers/pty.js";

const run = promisify(execFile);

const RIGHT_KEY = "sk-pty-right-key-0123456789";
const WRONG_KEY = "sk-pty-wrong-key-9876543210";
const TOKEN = "987654:PTY-telegram-token-abcdef";
const [UP, ENTER, SPACE] = ["\x1b[A", "\r", " "];
// Bounds for a loaded machine: each test starts one or two processes and waits on them.
const WAIT = { timeout: 90_000 };

let built: BuiltGateway;
let cli: string;
let fake: FakeOpenAI;
const cleanups: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  [built, fake] = await Promise.all([buildGateway(), startFakeOpenAI()]);
  cli = resolve(built.entry[0]!);
  fake.respondWith((request) =>
    request.headers.authorization === `Bearer ${RIGHT_KEY}` ? { text: "pong" } : { status: 401, body: { error: { message: "Incorrect API key provided" } } },
  );
}, 120_000);
afterAll(async () => {
  await Promise.all(cleanups.map((cleanup) => cleanup()));
  await Promise.all([fake?.close(), built?.remove()]);
});

/**
 * A test's own folder and bot (the tests run side by side, and two pollers on one bot would take each other's
 * updates), the environment a user's shell would have (no secrets; the fake Bot API as a self-hosted one), and the
 * set-up run in it.
 */
async function place() {
  const dir = await mkdtemp(join(tmpdir(), "switchboard-setup-pty-"));
  const tg = await startFakeTelegram({ token: TOKEN });
  cleanups.push(() => tg.close(), () => rm(dir, { recursive: true, force: true }));
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, TERM: "xterm-256color", NO_PROXY: "127.0.0.1", TELEGRAM_API_ROOT: tg.url };
  return {
    dir,
    tg,
    /** The wizard in a terminal. */
    setup(opts: { args?: string[]; env?: NodeJS.ProcessEnv; columns?: number; rows?: number } = {}): Pty {
      const pty = spawnPty(["node", cli, "setup", ...(opts.args ?? [])], { cwd: dir, env: { ...env, ...opts.env }, columns: opts.columns, rows: opts.rows });
      cleanups.unshift(() => pty.close());
      return pty;
    },
    /** `setup --yes` with the flags a script would give, the secrets in the variables they name; no terminal. */
    async scripted(secrets: Record<string, string>, yes = ["--yes"]): Promise<{ code: number; stdout: string; stderr: string }> {
      const flags = ["--provider", "custom", "--base-url", fake.url, "--model", "fake-model", "--llm-key-env", "MY_LLM_KEY", "--telegram-token-env", "MY_TG_TOKEN"];
      const args = [cli, "setup", ...yes, ...flags, "--owner", "telegram:42"];
      return run(process.execPath, args, { cwd: dir, env: { ...env, ...secrets }, timeout: 60_000 }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
      );
    },
  };
}

/** The straight way to the owner's pairing: the endpoint and the right key, Telegram and its token. */
async function answerUpToPairing(pty: Pty): Promise<void> {
  await pty.answer(/◆ {2}Model provider/, UP + ENTER);
  await pty.answer(/◆ {2}Base URL/, `${fake.url}${ENTER}`);
  await pty.answer(/◆ {2}Model\n/, `fake-model${ENTER}`);
  await pty.answer(/◆ {2}API key/, `${RIGHT_KEY}${ENTER}`);
  await pty.answer(/◆ {2}Platforms/, SPACE + ENTER);
  await pty.answer(/◆ {2}TELEGRAM_BOT_TOKEN/, `${TOKEN}${ENTER}`);
  await pty.answer(/◆ {2}Who owns the bot\?/, ENTER);
  await pty.expect(/Send \/start to your bot on telegram now/);
}

function expectNoSecret(pty: Pty): void {
  for (const secret of [RIGHT_KEY, WRONG_KEY, TOKEN, TOKEN.split(":")[1]!]) {
    expect(pty.raw).not.toContain(secret);
    expect(pty.screen).not.toContain(secret);
  }
}

describe.skipIf(!ptyAvailable).concurrent(`switchboard setup in a terminal${ptyAvailable ? "" : " (skipped: no util-linux script)"}`, () => {
  it("from nothing: catches a wrong key live, checks the bot token, pairs the owner, and the files start a gateway that answers", WAIT, async () => {
    const { dir, tg, setup } = await place();
    const pty = setup();
    await pty.answer(/◆ {2}Model provider/, UP + ENTER); // the last choice: another OpenAI-compatible endpoint
    await pty.answer(/◆ {2}Base URL/, `${fake.url}${ENTER}`);
    await pty.answer(/◆ {2}Model\n/, `fake-model${ENTER}`);
    await pty.answer(/◆ {2}API key/, `${WRONG_KEY}${ENTER}`);
    await pty.expect(/FAILED: openai-compatible fake-model: credentials refused: Incorrect API key provided/);
    await pty.answer(/◆ {2}Try again\?/, ENTER);
    await pty.answer(/◆ {2}Model provider/, ENTER);
    await pty.answer(/◆ {2}Base URL/, ENTER);
    await pty.answer(/◆ {2}Model\n/, ENTER);
    await pty.answer(/◆ {2}API key/, `${RIGHT_KEY}${ENTER}`);
    await pty.expect(/OK: openai-compatible fake-model answered/);
    await pty.answer(/◆ {2}Platforms/, SPACE + ENTER); // telegram, the first
    await pty.answer(/◆ {2}TELEGRAM_BOT_TOKEN/, `${TOKEN}${ENTER}`);
    await pty.expect(/OK: .*@switchboard_test_bot/);
    await pty.answer(/◆ {2}Who owns the bot\?/, ENTER);
    await pty.expect(/Send \/start to your bot on telegram now/);
    tg.addUpdate(messageUpdate(directChat(alice), { text: "/start" }));
    await pty.expect(/Owner: telegram:1001/);
    await pty.expect(/Wrote .*switchboard\.yaml/);
    expect(await pty.exited).toBe(0);
    expectNoSecret(pty);

    const envFile = join(dir, ".env");
    expect((await stat(envFile)).mode & 0o777).toBe(0o600);
    expect(parseEnv(await readFile(envFile, "utf8"))).toEqual({ LLM_API_KEY: RIGHT_KEY, TELEGRAM_BOT_TOKEN: TOKEN });
    const yamlText = await readFile(join(dir, "switchboard.yaml"), "utf8");
    for (const secret of [RIGHT_KEY, TOKEN]) expect(yamlText).not.toContain(secret);
    expect(parseYaml(yamlText)).toMatchObject({ llm: { baseUrl: fake.url, model: "fake-model" }, access: { owners: [`telegram:${alice.id}`] } });

    const gateway = startGateway([cli, "start"], { cwd: dir, env: { TELEGRAM_API_ROOT: tg.url, SWITCHBOARD_PORT: "0" } });
    try {
      await gateway.url(60_000);
      const before = tg.sent.length;
      tg.addUpdate(messageUpdate(directChat(alice), { text: "hello" }));
      await tg.waitFor(() => tg.sent.slice(before).find((m) => m.text === "pong"), 30_000);
    } finally {
      await gateway.stop("SIGTERM");
    }
  });

  it("re-running offers what is there: Enter keeps the endpoint, the key, the token and the owner", WAIT, async () => {
    const { dir, setup } = await place();
    await writeFile(join(dir, ".env"), `LLM_API_KEY=${RIGHT_KEY}\nTELEGRAM_BOT_TOKEN=${TOKEN}\nOTHER=kept\n`);
    await writeFile(join(dir, "switchboard.yaml"), `# mine\nllm:\n  baseUrl: ${fake.url}\n  model: fake-model\naccess:\n  owners: [telegram:42]\n`);
    const pty = setup();
    await pty.answer(/◆ {2}Model provider\n(│ {2}○.*\n)*│ {2}● Another OpenAI-compatible endpoint/, ENTER);
    await pty.answer(new RegExp(`◆ {2}Base URL.*\n│ {2}${fake.url.replaceAll(".", "\\.")}`), ENTER);
    await pty.answer(/◆ {2}Model\n│ {2}fake-model/, ENTER);
    await pty.answer(/◆ {2}API key \(Enter keeps the one in .env\)/, ENTER);
    await pty.expect(/OK: openai-compatible fake-model answered/);
    await pty.answer(/◆ {2}Platforms.*\n│ {2}◼ telegram/, ENTER);
    await pty.answer(/◆ {2}TELEGRAM_BOT_TOKEN \(Enter keeps the one in .env\)/, ENTER);
    await pty.expect(/OK: .*@switchboard_test_bot/);
    await pty.answer(/◆ {2}Owner: telegram:42\. Pair another from a chat\?/, UP + ENTER); // keep
    expect(await pty.exited).toBe(0);
    expectNoSecret(pty);
    expect(parseEnv(await readFile(join(dir, ".env"), "utf8"))).toEqual({ LLM_API_KEY: RIGHT_KEY, TELEGRAM_BOT_TOKEN: TOKEN, OTHER: "kept" });
    const yamlText = await readFile(join(dir, "switchboard.yaml"), "utf8");
    expect(yamlText).toContain("# mine");
    expect(parseYaml(yamlText)).toMatchObject({ llm: { baseUrl: fake.url, model: "fake-model" }, access: { owners: ["telegram:42"] } });
  });

  it("in a Chinese terminal it asks in Chinese, and offers the bot's default language, which it writes", WAIT, async () => {
    const { dir, setup } = await place();
    const pty = setup({ env: { LANG: "zh_CN.UTF-8" } });
    await pty.answer(/◆ {2}模型服务商（↑\/↓ 选择，回车确认）\n(│ {2}[●○].*\n)*│ {2}○ 其他 OpenAI 兼容接口\n└/, UP + ENTER);
    await pty.answer(/◆ {2}OpenAI 兼容 API 的 Base URL/, `${fake.url}${ENTER}`);
    await pty.answer(/◆ {2}模型\n/, `fake-model${ENTER}`);
    await pty.answer(/◆ {2}API 密钥（回车表示不用密钥）/, `${RIGHT_KEY}${ENTER}`);
    await pty.expect(/通过：openai-compatible fake-model answered/);
    await pty.answer(/◆ {2}平台（空格选择，回车完成；WebChat 始终开启）/, ENTER); // none
    await pty.answer(/◆ {2}机器人默认用中文回答？（i18n\.default: zh-Hans）\n│ {2}● 是 \/ ○ 否/, ENTER);
    await pty.expect(/已写入 .*switchboard\.yaml/);
    expect(await pty.exited).toBe(0);
    expect(pty.screen).not.toMatch(/Model provider|Platforms|navigate|confirm|Yes/);
    expectNoSecret(pty);
    expect(parseYaml(await readFile(join(dir, "switchboard.yaml"), "utf8"))).toMatchObject({ llm: { model: "fake-model" }, i18n: { default: "zh-Hans" } });
  });

  it("a terminal that reports no size still gets whole lines", WAIT, async () => {
    const { dir, setup } = await place();
    const pty = setup({ columns: 0, rows: 0 });
    await pty.answer(/◆ {2}Model provider\n│ {2}● OpenAI \(https:\/\/api\.openai\.com\/v1\)\n│ {2}○ Anthropic\n/, "\x03");
    expect(await pty.exited).toBe(1);
    expect(await readdir(dir)).toEqual([]);
  });

  it("Ctrl-C at a question cancels with exit code 1 and writes nothing", WAIT, async () => {
    const { dir, setup } = await place();
    const pty = setup();
    await pty.answer(/◆ {2}Model provider/, UP + ENTER);
    await pty.answer(/◆ {2}Base URL/, "\x03");
    await pty.expect(/Set-up cancelled; nothing was written\./);
    expect(await pty.exited).toBe(1);
    await expect(stat(join(dir, ".env"))).rejects.toThrow(/ENOENT/);
    await expect(stat(join(dir, "switchboard.yaml"))).rejects.toThrow(/ENOENT/);
  });

  it("Ctrl-C while it waits for /start exits with 130, writes nothing and leaves nothing behind", WAIT, async () => {
    const { dir, tg, setup } = await place();
    const tmp = join(dir, "tmp");
    await mkdir(tmp);
    const pty = setup({ env: { TMPDIR: tmp } });
    await answerUpToPairing(pty);
    await tg.waitFor(() => tg.callsOf("getUpdates").length > 0, 30_000); // the wait polls, on its temporary store
    pty.type("\x03");
    await pty.expect(/Set-up cancelled; nothing was written\./);
    expect(await pty.exited).toBe(130);
    expect(await readdir(tmp)).toEqual([]);
    expect(await readdir(dir)).toEqual(["tmp"]);
  });

  it("SIGTERM while it waits for /start ends the wait and the set-up, writing nothing", WAIT, async () => {
    const { dir, tg, setup } = await place();
    const tmp = join(dir, "tmp");
    await mkdir(tmp);
    const configPath = join(dir, "switchboard.yaml");
    const pty = setup({ args: ["--config", configPath], env: { TMPDIR: tmp } });
    await answerUpToPairing(pty);
    await tg.waitFor(() => tg.callsOf("getUpdates").length > 0, 30_000);
    const [pid] = await processesMatching(`setup --config ${configPath}`);
    process.kill(pid!, "SIGTERM");
    await pty.expect(/Set-up cancelled; nothing was written\./);
    expect(await pty.exited).toBe(1);
    expect(await readdir(tmp)).toEqual([]);
    expect(await readdir(dir)).toEqual(["tmp"]);
  });
});

describe.concurrent("switchboard setup --yes", () => {
  it("a wrong key fails the live check: a clear error, a non-zero exit, nothing written, no secret shown", WAIT, async () => {
    const { dir, scripted } = await place();
    const { code, stdout, stderr } = await scripted({ MY_LLM_KEY: WRONG_KEY, MY_TG_TOKEN: TOKEN });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^FAIL llm: openai-compatible fake-model: credentials refused: Incorrect API key provided \(fix: check LLM_API_KEY/m);
    expect(stderr).toMatch(/^OK {3}channel:telegram: token valid for @switchboard_test_bot/m);
    expect(stderr).toMatch(/nothing was written$/m);
    for (const secret of [WRONG_KEY, TOKEN]) expect(stdout + stderr).not.toContain(secret);
    expect(await readdir(dir)).toEqual([]);
  });

  it("the right key: the checks pass and the files are written", WAIT, async () => {
    const { dir, scripted } = await place();
    const { code, stdout } = await scripted({ MY_LLM_KEY: RIGHT_KEY, MY_TG_TOKEN: TOKEN });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^OK {3}llm: openai-compatible fake-model answered/m);
    expect(stdout).toContain(`wrote ${join(dir, "switchboard.yaml")} and ${join(dir, ".env")}`);
    for (const secret of [RIGHT_KEY, TOKEN]) expect(stdout).not.toContain(secret);
    expect(parseEnv(await readFile(join(dir, ".env"), "utf8"))).toEqual({ LLM_API_KEY: RIGHT_KEY, TELEGRAM_BOT_TOKEN: TOKEN });
    expect(parseYaml(await readFile(join(dir, "switchboard.yaml"), "utf8"))).toMatchObject({ access: { owners: ["telegram:42"] } });
  });

  it("without --yes and without a terminal it says to use --yes, and fails", WAIT, async () => {
    const { dir, scripted } = await place();
    const { code, stdout, stderr } = await scripted({ MY_LLM_KEY: RIGHT_KEY, MY_TG_TOKEN: TOKEN }, []);
    expect(code).toBe(1);
    expect(stderr).toContain("setup asks its questions on a terminal; without one, give the answers as flags with --yes");
    expect(stdout).toBe("");
    expect(await readdir(dir)).toEqual([]);
  });

  it("--language zh says so in Chinese", WAIT, async () => {
    const { dir, scripted } = await place();
    const { code, stderr } = await scripted({ MY_LLM_KEY: RIGHT_KEY, MY_TG_TOKEN: TOKEN, LANG: "en_US.UTF-8" }, ["--language", "zh"]);
    expect(code).toBe(1);
    expect(stderr).toContain("setup 需要在终端里提问；没有终端时，请用 --yes 并以参数给出答案");
    expect(await readdir(dir)).toEqual([]);
  });
});
