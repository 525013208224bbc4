/**
 * Message rate limits per user and per group chat. Over a limit, the first message of the window gets one
 * "slow down" notice and the rest are dropped; the caller audits each one with the running count.
 */
import type { InboundMessage } from "../core/types.js";
import type { Store } from "../infra/store/types.js";
import type { AccessConfig } from "./config.js";
import { LocalWindowCounter } from "./local-window-counter.js";
import { WindowCounter } from "./window-counter.js";

export type LimitVerdict =
  | { kind: "within" }
  /** The first message over the limit in this window: answer it with a notice naming the `rate`. */
  | { kind: "notice"; scope: "user" | "chat"; rate: Rate }
  /** Over the limit and already told: drop it. `dropped` counts this window's drops so far. */
  | { kind: "drop"; scope: "user" | "chat"; dropped: number };

type Counter = Pick<WindowCounter, "hit">;

export interface Rate {
  messages: number;
  windowSeconds: number;
}

export class MessageLimits {
  private readonly perUser: Counter;
  private readonly perChat: Counter;

  constructor(
    private readonly config: AccessConfig["limits"],
    store: Store,
    now?: () => number,
  ) {
    // Replicas (Redis) share the counts; one process (SQLite) counts in memory, with no store round trip.
    const counter = (name: string, windowMs: number): Counter =>
      store.coordinator.shared ? new WindowCounter(store, name, windowMs, now) : new LocalWindowCounter(windowMs, now);
    this.perUser = counter("rate-user", config.perUser.windowSeconds * 1000);
    this.perChat = counter("rate-chat", config.perChat.windowSeconds * 1000);
  }

  /** Counts the message against its sender and, in a group, its chat. */
  async check(message: InboundMessage): Promise<LimitVerdict> {
    const user = await this.perUser.hit(`${message.channel}:${message.sender.id}`);
    const overUser = verdict("user", user, this.config.perUser);
    if (overUser.kind !== "within" || message.chat.type !== "group") return overUser;
    const chat = await this.perChat.hit(`${message.channel}:${message.chat.id}`);
    return verdict("chat", chat, this.config.perChat);
  }
}

function verdict(scope: "user" | "chat", count: number, rate: Rate): LimitVerdict {
  if (count <= rate.messages) return { kind: "within" };
  if (count > rate.messages + 1) return { kind: "drop", scope, dropped: count - rate.messages };
  return { kind: "notice", scope, rate };
}
