/**
 * The acknowledgement of a turn: the channel marks the user's message (a reaction) when the turn starts and takes
 * the mark back when the reply is out. A platform refusing the reaction never holds up or fails the turn.
 */
import type { Channel, InboundMessage } from "../core/types.js";
import type { Logger } from "../infra/log.js";

/** Resolves with the function that clears the mark (a no-op when there is none). */
export async function acknowledgeTurn(channel: Channel, message: InboundMessage, log: Logger): Promise<() => Promise<void>> {
  const noop = async () => {};
  if (!channel.acknowledge) return noop;
  try {
    const clear = await channel.acknowledge(message);
    return () => clear().catch((err: unknown) => log.warn({ err }, "could not clear the acknowledgement reaction"));
  } catch (err) {
    log.warn({ err }, "could not add the acknowledgement reaction");
    return noop;
  }
}
