/** `switchboard setup`: the wizard on a terminal, or with `--yes` the same from flags. */
import { Option, type Command } from "commander";
import { SETUP_CHANNELS } from "./answers.js";
import type { Logger } from "../infra/log.js";
import { PROVIDERS } from "./providers.js";
import { runScripted } from "./scripted.js";
import { runWizard } from "./wizard.js";

/** `--telegram-token-env`, `--feishu-app-secret-env`: the flag naming the variable that holds a credential. */
function credentialFlag(channel: string, field: string): string {
  return `--${channel}-${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}-env`;
}

const camel = (flag: string) => flag.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

export function registerSetupCommand(program: Command, configPath: () => string | undefined, log: () => Logger): void {
  const command = program
    .command("setup")
    .description("write a configuration and .env: the model, the platforms and the owner, each checked live")
    .addOption(new Option("--provider <id>", "model provider").choices(PROVIDERS.map((p) => p.id)))
    .option("--base-url <url>", "the model API's base URL (for --provider custom, or to override)")
    .option("--model <name>", "the model (default: the provider's first)")
    .option("--llm-key-env <VAR>", "the environment variable holding the model's API key")
    .option("--owner <channel:id...>", "the owner(s), e.g. telegram:123456")
    .option("--no-check", "write without the live checks (no network at build time)")
    .option("-y, --yes", "no questions: take everything from the flags");
  for (const module of SETUP_CHANNELS) {
    for (const { field, env } of module.credentials) command.option(`${credentialFlag(module.name, field)} <VAR>`, `the variable holding ${env}`);
  }
  command.action(async (opts: Record<string, unknown>) => {
    if (opts.yes !== true) {
      // Without a terminal the questions could never be answered: the wizard would stop at the first, exiting 0.
      if (!process.stdin.isTTY) throw new Error("setup asks its questions on a terminal; without one, give the answers as flags with --yes (see setup --help)");
      const written = await runWizard({ configPath: configPath(), log: log() });
      process.exitCode = written ? 0 : 1;
      return;
    }
    const credentialEnvs = new Map<string, Record<string, string>>();
    for (const module of SETUP_CHANNELS) {
      const given = module.credentials.filter(({ field }) => opts[camel(credentialFlag(module.name, field))] !== undefined);
      if (given.length === 0) continue;
      const missing = module.credentials.filter((c) => !given.includes(c)).map((c) => credentialFlag(module.name, c.field));
      if (missing.length > 0) throw new Error(`${module.name} needs ${missing.join(", ")} as well`);
      credentialEnvs.set(module.name, Object.fromEntries(given.map(({ field, env }) => [env, opts[camel(credentialFlag(module.name, field))] as string])));
    }
    const lines = await runScripted({
      configPath: configPath(),
      provider: (opts.provider as string | undefined) ?? "openai",
      baseUrl: opts.baseUrl as string | undefined,
      model: opts.model as string | undefined,
      llmKeyEnv: opts.llmKeyEnv as string | undefined,
      credentialEnvs,
      owners: opts.owner as string[] | undefined,
      check: opts.check !== false,
      env: process.env,
    });
    console.log(lines.join("\n"));
  });
}
