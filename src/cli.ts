#!/usr/bin/env node
/** The `switchboard` command: start the gateway, check the set-up, show the configuration. */
import { Command } from "commander";
import { stringify as toYaml } from "yaml";
import { registerPairingCommands } from "./access/cli.js";
import { ConfigError, loadConfig } from "./config/load.js";
import type { Config } from "./config/schema.js";
import { collectSecrets, redactSecrets, redactText } from "./config/secrets.js";
import { formatDoctor, runDoctor } from "./doctor.js";
import { Gateway } from "./gateway.js";
import { registerReceiptsCommands } from "./im/receipts-cli.js";
import { createLogger, type Logger } from "./log.js";
import { registerMcpCommands } from "./mcp/cli.js";
import { gatewayApiOf, registerTaskCommands } from "./scheduler/index.js";
import { createStore } from "./store/index.js";
import type { Store } from "./store/types.js";
import { registerSkillsCommands } from "./skills/cli.js";
import { BUNDLED_SKILLS_DIR, userSkillsDir } from "./skills/index.js";

const program = new Command()
  .name("switchboard")
  .description("Self-hosted IM chatbot gateway")
  .option("-c, --config <path>", "configuration file (default: $SWITCHBOARD_CONFIG)");

function config(): Config {
  return loadConfig({ configPath: program.opts<{ config?: string }>().config });
}

program
  .command("start")
  .description("start the gateway")
  .action(async () => {
    const gateway = await Gateway.create(config());
    await gateway.start();
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

/** The configuration and a quiet logger, for the commands that work beside (or without) a running gateway. */
function commandSetup(): { cfg: Config; log: Logger } {
  const cfg = config();
  return { cfg, log: createLogger({ level: "warn", secrets: collectSecrets(cfg) }) };
}

/** The gateway's store, for commands that read or change what it keeps. */
function openStore({ cfg, log }: { cfg: Config; log: Logger } = commandSetup()): Promise<Store> {
  return createStore({ url: cfg.store.url, dataDir: cfg.dataDir, log });
}

registerSkillsCommands(program, {
  setup: () => {
    const { cfg, log } = commandSetup();
    return { config: cfg.skills, bundledDir: BUNDLED_SKILLS_DIR, userDir: userSkillsDir(cfg.dataDir), log };
  },
});
registerMcpCommands(program, {
  setup: () => {
    const cfg = config();
    const secrets = collectSecrets(cfg);
    return { config: cfg.mcp, dataDir: cfg.dataDir, redact: (text) => redactText(text, secrets) };
  },
});
registerPairingCommands(program, { openStore: () => openStore() });
registerReceiptsCommands(program, { openStore: () => openStore() });
registerTaskCommands(program, {
  setup: async () => {
    const setup = commandSetup();
    const { cfg, log } = setup;
    return { config: cfg.scheduler, defaultTimezone: cfg.agent.timezone, store: await openStore(setup), api: gatewayApiOf(cfg.http), log };
  },
});

program.parseAsync().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
