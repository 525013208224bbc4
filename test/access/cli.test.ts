/** `switchboard pairing ...` as a user runs it: a real child process on the sources, against a real SQLite store. */
import { execFile } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Command } from "commander";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { registerPairingCommands } from "../../src/access/cli.js";
import { PairingBook } from "../../src/access/pairing.js";
import { createStore } from "../../src/infra/store/index.js";
import { CHANNEL_NAMES } from "../helpers/channel-names.js";

const run = promisify(execFile);

async function cli(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, SWITCHBOARD_DATA_DIR: dataDir };
  try {
    const { stdout, stderr } = await run("node", ["--import", "tsx", "src/cli.ts", "pairing", ...args], { env, timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Asks for a code the way the gateway does, in a store that is closed again before the CLI runs. */
async function requestCode(dataDir: string, userId: string): Promise<string> {
  const store = await createStore({ url: null, dataDir, log: pino({ level: "silent" }) });
  try {
    const request = await new PairingBook(store, CHANNEL_NAMES).request({ channel: "telegram", userId, chatId: userId, name: "Dora" });
    if (request.status === "full") throw new Error("no code");
    return request.code;
  } finally {
    await store.close();
  }
}

describe("switchboard pairing", () => {
  it("approves and lists; a wrong code exits with 1", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "switchboard-pairing-cli-"));
    const code = await requestCode(dataDir, "314");

    const wrong = await cli(dataDir, "approve", "telegram", "ZZZZZZZZ");
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain('No pending telegram pairing request has the code "ZZZZZZZZ"');

    const approved = await cli(dataDir, "approve", "Telegram", code.toLowerCase());
    expect(approved).toMatchObject({ code: 0, stdout: "Approved Dora (telegram:314). They can chat with me now.\n" });
    expect((await cli(dataDir, "list", "telegram")).stdout).toMatch(/Paired users:\ntelegram:314 {2}Dora, approved .* by cli/);

  }, 60_000);

  it("refuses an unknown channel before touching the store", async () => {
    let opened = false;
    const program = new Command().exitOverride().configureOutput({ writeErr: () => {} });
    registerPairingCommands(program, {
      channels: CHANNEL_NAMES,
      openStore: () => {
        opened = true;
        throw new Error("the store must not be opened");
      },
    });
    const parsing = program.parseAsync(["node", "switchboard", "pairing", "approve", "irc", "ABCD2345"]);
    await expect(parsing).rejects.toThrow(/'irc' is invalid for argument 'channel'\. expected one of telegram, feishu, discord, web, slack/);
    expect(opened).toBe(false);
  });
});
