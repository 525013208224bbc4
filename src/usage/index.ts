/** Usage accounting and budgets: the meter behind the agent's usage port, /usage, the console's and the CLI's reports. */
export { budgetsConfigSchema, type BudgetsConfig } from "./config.js";
export { UsageMeter, type MeterDeps } from "./meter.js";
export { UsageReader } from "./ledger.js";
export { Periods } from "./periods.js";
export { usageCommands } from "./commands.js";
export { usageRoutes } from "./console-routes.js";
export { registerUsageCommand } from "./cli.js";
export { priceLookup, type PriceOf, type Prices } from "./prices.js";
