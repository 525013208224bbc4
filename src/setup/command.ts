/** `switchboard setup`: the wizard on a terminal, or with `--yes` the same from flags. */
import { Option, type Command } from "commander";
import { SETUP_CHANNELS } from "./answers.js";
import type { Logger } from "../infra/log.js";
import { setupLocale, setupWords } from "./language.js";
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
    .option("--language <zh|en>", "the set-up's language (default: the terminal's locale, from LC_ALL, LC_MESSAGES or LANG)")
    .option("-y, --yes", "no questions: take everything from the flags");
  for (const module of SETUP_CHANNELS) {
    for (const { field, env } of module.credentials) command.option(`${credentialFlag(module.name, field)} <VAR>`, `the variable holding ${env}`);
  }
  command.action(async (opts: Record<string, unknown>) => {
    const locale = setupLocale(opts.language as string | undefined, process.env);
    const t = setupWords(locale);
    if (opts.yes !== true) {
      // Without a terminal the questions could never be answered: the wizard would stop at the first, exiting 0.
      if (!process.stdin.isTTY) throw new Error(t("setup.scripted.noTerminal"));
      const written = await runWizard({ configPath: configPath(), log: log(), locale });
      process.exitCode = written ? 0 : 1;
      return;
    }
    const credentialEnvs = new Map<string, Record<string, string>>();
    for (const module of SETUP_CHANNELS) {
      const given = module.credentials.filter(({ field }) => opts[camel(credentialFlag(module.name, field))] !== undefined);
      if (given.length === 0) continue;
      const missing = module.credentials.filter((c) => !given.includes(c)).map((c) => credentialFlag(module.name, c.field));
      if (missing.length > 0) throw new Error(t("setup.scripted.needsAlso", { channel: module.name, flags: missing.join(", ") }));
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
      locale,
    });
    console.log(lines.join("\n"));
  });
}
