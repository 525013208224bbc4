/**
 * What a user sees while a turn runs: the chat's "typing" signal, and an acknowledgement the channel puts on the
 * user's message (a reaction) and takes back when the reply is out. Both start only for a turn still running after
 * a short delay: a quicker reply is its own signal, and signalling it would cost platform calls per message that
 * nobody sees. The turn never waits for either, and a platform refusing them never fails the turn.
 */
import type { Clock } from "../core/clock.js";
import { targetOf, type Channel, type InboundMessage } from "../core/types.js";
import type { Logger } from "../infra/log.js";

export const ACK_DELAY_MS = 1_000;
/** Shorter than a person notices; a model's first words rarely come sooner. */
export const TYPING_DELAY_MS = 300;
/** Platforms show "typing" for about 5 s (Telegram, Discord: up to 10 s). */
const TYPING_REFRESH_MS = 5_000;

/** Shows "typing" from TYPING_DELAY_MS into the turn until the function it returns is called. */
export function keepTyping(channel: Channel, message: InboundMessage, log: Logger, clock: Clock): () => void {
  const typing = channel.typing?.bind(channel);
  if (!typing) return () => {};
  const target = targetOf(message);
  const tick = () => {
    void typing(target).catch((err: unknown) => log.debug({ err }, "typing indicator failed"));
    cancel = clock.setTimer(TYPING_REFRESH_MS, tick);
  };
  let cancel = clock.setTimer(TYPING_DELAY_MS, tick);
  return () => cancel();
}

/** Starts the acknowledgement; the function it returns ends it (cancels it, or clears the mark once it is on). */
export function acknowledgeTurn(channel: Channel, message: InboundMessage, log: Logger, clock: Clock): () => Promise<void> {
  const acknowledge = channel.acknowledge?.bind(channel);
  if (!acknowledge) return async () => {};
  let marking: Promise<(() => Promise<void>) | undefined> | undefined;
  const cancel = clock.setTimer(ACK_DELAY_MS, () => {
    marking = acknowledge(message).catch((err: unknown) => {
      log.warn({ err }, "could not add the acknowledgement reaction");
      return undefined;
    });
  });
  return async () => {
    cancel();
    const clear = await marking;
    await clear?.().catch((err: unknown) => log.warn({ err }, "could not clear the acknowledgement reaction"));
  };
}
