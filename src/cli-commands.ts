/** The `switchboard` command's subcommands: start the gateway, check the set-up, show the configuration. */
import { existsSync, readFileSync } from "node:fs";
import { Command } from "commander";
import { stringify as toYaml } from "yaml";
import { Gateway } from "./app.js";
import { registerBackupCommands } from "./backup-commands.js";
import { channelModules } from "./channels/modules.js";
import { collectSecrets, ConfigError, featureSettings, loadConfig, type Config } from "./config.js";
import { formatDoctor, runDoctor } from "./doctor.js";
import type { FeatureModule } from "./features/module.js";
import { featureModules } from "./features/modules.js";
import { redactSecrets } from "./infra/config/secrets.js";
import { gatewayApiOf } from "./infra/http/gateway-api.js";
import { letYoungGenerationGrow } from "./infra/heap-growth.js";
import { createLogger, type Logger } from "./infra/log.js";
import { packageFile } from "./infra/package-files.js";
import { createStore } from "./infra/store/index.js";
import type { Store } from "./infra/store/types.js";
import { registerSetupCommand } from "./setup/command.js";
import { DEFAULT_CONFIG_FILE, loadEnvFile } from "./setup/files.js";

const { version } = JSON.parse(readFileSync(packageFile("package.json"), "utf8")) as { version: string };

const program = new Command()
  .name("switchboard")
  .version(version, "-V, --version", "print the version")
  .description("Self-hosted IM chatbot gateway")
  .option("-c, --config <path>", "configuration file (default: $SWITCHBOARD_CONFIG)");

/** --config, else $SWITCHBOARD_CONFIG, else ./switchboard.yaml when there is one (what `setup` writes). */
function configPath(): string | undefined {
  const given = program.opts<{ config?: string }>().config ?? (process.env.SWITCHBOARD_CONFIG || undefined);
  return given ?? (existsSync(DEFAULT_CONFIG_FILE) ? DEFAULT_CONFIG_FILE : undefined);
}

/** The configuration, with the `.env` beside it loaded first (variables already set win). */
function config(): Config {
  loadEnvFile(configPath());
  return loadConfig({ configPath: configPath() });
}

program
  .command("start")
  .description("start the gateway")
  .action(async () => {
    const gateway = await Gateway.create(config());
    await gateway.start();
    letYoungGenerationGrow();
    const stop = (signal: NodeJS.Signals) => {
      gateway.log.info({ signal }, "signal received");
      gateway.stop().then(
        () => process.exit(0),
        (err: unknown) => {
          gateway.log.error({ err }, "shutdown failed");
          process.exit(1);
        },
      );
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });

program
  .command("status")
  .description("ask the running gateway how it is: its /readyz, component by component")
  .action(async () => {
    const { url, token } = gatewayApiOf(config().http);
    const response = await fetch(`${url}/readyz`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(10_000),
    }).catch((err: unknown) => {
      throw new Error(`No gateway answers at ${url}; is it started? (${(err as Error).message})`, { cause: err });
    });
    const report = (await response.json()) as { ready: boolean; components: Record<string, { ok: boolean; detail?: string }> };
    console.log(`${report.ready ? "READY" : "NOT READY"} ${url}`);
    for (const [name, c] of Object.entries(report.components)) console.log(`${c.ok ? "OK  " : "FAIL"} ${name}${c.detail ? `: ${c.detail}` : ""}`);
    process.exitCode = report.ready ? 0 : 1;
  });

program
  .command("doctor")
  .description("check the configuration, the store, the LLM endpoint and each enabled channel")
  .action(async () => {
    const cfg = config();
    const log = createLogger({ level: "silent", secrets: collectSecrets(cfg) });
    const results = await runDoctor(cfg, log);
    console.log(formatDoctor(results));
    process.exitCode = results.every((r) => r.ok) ? 0 : 1;
  });

program
  .command("config")
  .description("configuration commands")
  .command("show")
  .description("print the configuration in force, secrets redacted")
  .action(() => {
    const cfg = config();
    process.stdout.write(toYaml(redactSecrets(cfg, collectSecrets(cfg))));
  });

registerBackupCommands(program, config, version);
registerSetupCommand(program, configPath, () => createLogger({ level: "silent", secrets: [] }));

/** The configuration and a quiet logger, for the commands that work beside (or without) a running gateway. */
function commandSetup(): { cfg: Config; log: Logger } {
  const cfg = config();
  return { cfg, log: createLogger({ level: "warn", secrets: collectSecrets(cfg) }) };
}

/** The gateway's store, for commands that read or change what it keeps. */
function openStore({ cfg, log }: { cfg: Config; log: Logger } = commandSetup()): Promise<Store> {
  return createStore({ url: cfg.store.url, keyPrefix: cfg.store.keyPrefix, dataDir: cfg.dataDir, log });
}

const channelNames = channelModules.map((module) => module.name);
for (const module of featureModules as readonly FeatureModule[]) {
  module.cli?.(program, {
    setup: () => {
      const { cfg, log } = commandSetup();
      return { settings: featureSettings(cfg, module), core: cfg, secrets: collectSecrets(cfg), log };
    },
    channelNames,
    openStore: () => openStore(),
  });
}

program.parseAsync().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
