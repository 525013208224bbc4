/**
 * The layer rules of src/ (see ARCHITECTURE.md). A layer imports only from the layers below it:
 *   core < infra < channels | engines < handlers < features < agent < gateway < console < app (src/*.ts)
 * Engines are the features' own folders (ENGINES below). features/ holds the plugs that join an engine to its tools
 * and to the gateway (FeatureModule).
 */
const ENGINES = "(access|approvals|media|scheduler|sessions|skills|mcp|memory|web|browser|desktop|voice|images|agents|usage)";

const forbidUp = (name, from, to, comment) => ({ name, comment, severity: "error", from: { path: from }, to: { path: to } });

module.exports = {
  forbidden: [
    { name: "no-circular", comment: "Import circles hide which module is the lower one.", severity: "error", from: {}, to: { circular: true } },
    forbidUp("core-imports-nothing", "^src/core/", "^src/(?!core/)", "core/ holds the types and pure helpers everything else shares."),
    forbidUp("infra-below-features", "^src/infra/", "^src/(?!core/|infra/)", "infra/ (store, http, config, log) knows no feature."),
    forbidUp(
      "channels-are-adapters",
      "^src/channels/",
      "^src/(?!core/|infra/|channels/)",
      "A channel adapter knows the core types and infra, never the gateway, the agent or a feature.",
    ),
    {
      name: "channel-folders-stand-alone",
      comment: "One platform's folder never imports another's; shared code lives in src/channels/*.ts (the kit).",
      severity: "error",
      from: { path: "^src/channels/([^/]+)/" },
      to: { path: "^src/channels/([^/]+)/", pathNot: "^src/channels/$1/" },
    },
    forbidUp(
      "engines-never-import-the-tool-surface",
      `^src/${ENGINES}/`,
      "^src/(channels|handlers|features|agent|gateway|console)/|^src/[^/]+\\.ts$",
      "An engine is called by its handler file and by the app; it never imports handlers/, agent/, gateway/ or an adapter.",
    ),
    {
      name: "engines-stand-alone",
      comment: "An engine never imports another engine: what they share is a port in core/ or a service in infra/.",
      severity: "error",
      from: { path: `^src/${ENGINES}/` },
      to: { path: `^src/${ENGINES}/`, pathNot: "^src/$1/" },
    },
    forbidUp("handlers-below-features", "^src/handlers/", "^src/(channels|features|agent|gateway|console)/|^src/[^/]+\\.ts$", "Handlers are the tool surface the agent calls."),
    forbidUp(
      "features-are-plugs",
      "^src/features/",
      "^src/(channels|agent|gateway|console)/|^src/[^/]+\\.ts$",
      "A feature's plug joins its engine and handlers to the gateway through the FeatureModule contract, never the agent or the gateway.",
    ),
    {
      name: "feature-plugs-stand-alone",
      comment: "One feature's plug never imports another's; the contract and the runtime are shared.",
      severity: "error",
      from: { path: "^src/features/(?!module\\.ts|modules\\.ts|runtime\\.ts)([^/]+)\\.ts$" },
      to: { path: "^src/features/(?!module\\.ts)[^/]+\\.ts$", pathNot: "^src/features/$1\\.ts$" },
    },
    forbidUp("agent-below-gateway", "^src/agent/", "^src/(channels|features|gateway|console)/|^src/[^/]+\\.ts$", "The agent runs turns; the gateway decides when; it sees features only through TurnHooks."),
    forbidUp(
      "model-wire-behind-its-index",
      "^src/(?!agent/wire/)",
      "^src/agent/wire/(?!index\\.ts$)",
      "What reaches below the AI SDK's public API stays in agent/wire/; the rest imports its index only.",
    ),
    forbidUp(
      "provider-internals-in-the-wire",
      "^src/(?!agent/wire/)",
      "node_modules/@ai-sdk/[^/]+/dist/internal/",
      "A provider's internal exports change with any upgrade: none is imported outside agent/wire/, where pinned versions and request-shape.test.ts guard them.",
    ),
    forbidUp("gateway-knows-no-adapter", "^src/gateway/", "^src/(channels|features|console)/|^src/[^/]+\\.ts$", "The gateway sees channels only through the Channel port in core/."),
    forbidUp(
      "console-below-app",
      "^src/console/",
      "^src/(channels|features)/|^src/[^/]+\\.ts$",
      "The owner's console reads the parts the app hands it (features' routes included), never an adapter, a plug or the app.",
    ),
    forbidUp("setup-is-app-level", "^src/(?!setup/)[^/]+/", "^src/setup/", "The set-up wizard is a command of the app: only src/*.ts (the CLI) uses it."),
    { name: "no-orphans", severity: "error", from: { orphan: true, path: "^src/", pathNot: "\\.d\\.ts$" }, to: {} },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"], extensions: [".ts", ".js"] },
  },
};
