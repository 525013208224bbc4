/**
 * WhatsApp's customer-service window: a business may send free-form messages to a person for 24 hours after that
 * person's last message; after that only approved templates go through (error 131047). The time of each person's
 * last message is kept in the store, so every replica and a restarted gateway know whose window is open.
 */
import type { Namespace, Store } from "../../infra/store/types.js";

export const WINDOW_MS = 24 * 3_600_000;

export class ServiceWindow {
  private readonly times: Namespace<number>;

  constructor(
    store: Store,
    private readonly phoneNumberId: string,
    private readonly now: () => number,
  ) {
    this.times = store.namespace<number>("meta");
  }

  /** The person wrote just now (at `at`, the message's own time when it is older). */
  async opened(waId: string, at = this.now()): Promise<void> {
    const left = at + WINDOW_MS - this.now();
    if (left > 0) await this.times.set(this.key(waId), at, left);
  }

  async isOpen(waId: string): Promise<boolean> {
    const at = await this.times.get(this.key(waId));
    return at !== undefined && this.now() - at < WINDOW_MS;
  }

  private key(waId: string): string {
    return `whatsapp-window:${this.phoneNumberId}:${waId}`;
  }
}
