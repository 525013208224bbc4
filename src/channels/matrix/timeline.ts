/**
 * A room's new events in one sync. When more arrived than the sync's timeline holds (`limited`, after a long
 * downtime in a busy room), the events in between are fetched with /messages, backwards from the timeline's
 * `prev_batch` to the previous sync's token, so that nothing sent while the gateway was down is lost.
 */
import type { Logger } from "../../infra/log.js";
import { enc, type MatrixApi } from "./api.js";

/** At most this many pages of 100 events are fetched for one gap; older ones are reported as lost. */
const MAX_GAP_PAGES = 20;

export interface Timeline {
  events?: unknown[];
  limited?: boolean;
  prev_batch?: string;
}

/** The room's events since `since`, oldest first. */
export async function eventsSince(api: MatrixApi, roomId: string, timeline: Timeline, since: string | undefined, log: Logger): Promise<unknown[]> {
  const events = timeline.events ?? [];
  if (!timeline.limited || timeline.prev_batch === undefined || since === undefined) return events;
  const gap: unknown[] = [];
  let from: string | undefined = timeline.prev_batch;
  for (let page = 0; from !== undefined; page += 1) {
    if (page === MAX_GAP_PAGES) {
      log.warn({ roomId, fetched: gap.length }, "more Matrix events arrived while the gateway was down than it fetches; the oldest are not answered");
      break;
    }
    const answer: { chunk?: unknown[]; end?: string } = await api.call({
      method: "GET",
      path: `/_matrix/client/v3/rooms/${enc(roomId)}/messages`,
      query: { dir: "b", from, to: since, limit: 100 },
    });
    const chunk = answer.chunk ?? [];
    gap.push(...chunk);
    from = chunk.length > 0 ? answer.end : undefined;
  }
  return [...gap.reverse(), ...events];
}
