/** The owner's web console: its page (/console/) and its JSON API (/api/v1/console/...). */
import { registerConsoleApi } from "./api.js";
import type { ConsoleDeps } from "./deps.js";
import { serveConsolePage } from "./static.js";

export type { ChannelView, ConsoleDeps } from "./deps.js";

export function registerConsole(deps: ConsoleDeps): void {
  serveConsolePage(deps.http.app);
  registerConsoleApi(deps);
}
