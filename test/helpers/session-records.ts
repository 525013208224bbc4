/** The store-backed session records the agent and the system tools share, as the app builds them once. */
import type { Logger } from "../../src/infra/log.js";
import type { Store } from "../../src/infra/store/types.js";
import { SessionHistory } from "../../src/sessions/history.js";
import { ThinkingSettings } from "../../src/sessions/thinking.js";
import { TurnLog } from "../../src/sessions/turn-log.js";

export function sessionRecords(store: Store, log: Logger): { history: SessionHistory; turnLog: TurnLog; thinking: ThinkingSettings } {
  return { history: new SessionHistory(store, log), turnLog: new TurnLog(store), thinking: new ThinkingSettings(store) };
}
