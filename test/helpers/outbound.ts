/** The real outbound service with short waits, for tests that send through a channel. */
import { OutboundService, type OutboundConfig } from "../../src/gateway/outbound-service.js";
import type { Channel, ChannelName } from "../../src/core/types.js";
import type { Logger } from "../../src/infra/log.js";
import type { Store } from "../../src/infra/store/types.js";

export const FAST_OUTBOUND: OutboundConfig = {
  attempts: 3,
  baseDelayMs: 5,
  maxRetryAfterMs: 2_000,
  outboxRetryMinutes: 1,
  outboxBaseDelayMs: 20,
  outboxMaxDelayMs: 200,
};

export function testOutbound(deps: {
  store: Store;
  log: Logger;
  channelOf: (name: ChannelName) => Channel | undefined;
  config?: Partial<OutboundConfig>;
}): OutboundService {
  return new OutboundService({ ...deps, config: { ...FAST_OUTBOUND, ...deps.config } });
}
