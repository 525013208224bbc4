/**
 * The acknowledgement of a turn: the channel marks the user's message (a reaction) while the turn runs and takes
 * the mark back when the reply is out. Only a turn still running after ACK_DELAY_MS is marked: a quicker reply is
 * its own acknowledgement, and marking it would cost two platform calls per message for a mark nobody sees. The
 * turn never waits for the mark, and a platform refusing it never fails the turn.
 */
import type { Channel, InboundMessage } from "../core/types.js";
import type { Logger } from "../infra/log.js";

export const ACK_DELAY_MS = 1_000;

/** Starts the acknowledgement; the function it returns ends it (cancels it, or clears the mark once it is on). */
export function acknowledgeTurn(channel: Channel, message: InboundMessage, log: Logger): () => Promise<void> {
  const acknowledge = channel.acknowledge?.bind(channel);
  if (!acknowledge) return async () => {};
  let marking: Promise<(() => Promise<void>) | undefined> | undefined;
  const timer = setTimeout(() => {
    marking = acknowledge(message).catch((err: unknown) => {
      log.warn({ err }, "could not add the acknowledgement reaction");
      return undefined;
    });
  }, ACK_DELAY_MS);
  return async () => {
    clearTimeout(timer);
    const clear = await marking;
    await clear?.().catch((err: unknown) => log.warn({ err }, "could not clear the acknowledgement reaction"));
  };
}
