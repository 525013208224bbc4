/** Access control's plug: its settings, /pair, the pairing commands of the CLI and doctor's warnings. */
import { pairingCommands } from "../access/commands.js";
import { registerPairingCommands } from "../access/cli.js";
import { accessConfigSchema } from "../access/config.js";
import { riskySettings } from "../access/risks.js";
import { defineFeature } from "./module.js";

export const accessFeature = defineFeature({
  name: "access",
  configSchema: accessConfigSchema,
  // The access control itself is part of the inbound pipeline (the app builds it for the router).
  create: ({ access }) => ({ commands: pairingCommands(access) }),
  doctor: async (access, core) => riskySettings({ http: core.http, access }).map((risk) => ({ name: "access", ok: true, warning: true, ...risk })),
  cli: (program, ctx) => registerPairingCommands(program, { openStore: () => ctx.openStore(), channels: ctx.channelNames }),
});
