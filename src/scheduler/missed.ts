/**
 * One-shot tasks that came due more than the grace period ago are not sent late: they are marked missed, and
 * each creator gets one message per chat listing what they missed, instead of one per reminder.
 */
import type { Speech } from "../core/i18n.js";
import type { Logger } from "../infra/log.js";
import type { Delivery } from "./delivery.js";
import { spokenDuration } from "./spoken.js";
import type { TaskRecord } from "./types.js";

interface MissedGroup {
  /** Any of the group's tasks: they share the chat and the creator, which is all notify needs. */
  task: TaskRecord;
  missed: Array<{ slot: number; task: TaskRecord }>;
}

export class MissedNotices {
  private groups = new Map<string, MissedGroup>();

  constructor(private readonly graceMs: number) {}

  get isEmpty(): boolean {
    return this.groups.size === 0;
  }

  add(task: TaskRecord, slot: number): void {
    if (task.silent) return;
    const key = `${task.target.channel}:${task.target.chatId}:${task.creator.userId}`;
    const group = this.groups.get(key) ?? { task, missed: [] };
    group.missed.push({ slot, task });
    this.groups.set(key, group);
  }

  /** Sends each creator their summary; a failed send is logged, not retried later. */
  async flush(delivery: Delivery, signal: AbortSignal, log: Logger): Promise<void> {
    const groups = [...this.groups.values()];
    this.groups = new Map();
    for (const { task, missed } of groups) {
      // Runs finish in any order; the list goes by due time.
      missed.sort((a, b) => a.slot - b.slot);
      const words = (speech: Speech): string => {
        const lines = missed.map((m) => speech.t("schedules.missedLine", { name: m.task.name, id: m.task.id, when: speech.time(m.slot, m.task.timezone) }));
        return [speech.t("schedules.missed", { count: missed.length, grace: spokenDuration(this.graceMs, speech.t) }), ...lines].join("\n");
      };
      try {
        await delivery.notify(task, words, signal);
      } catch (err) {
        log.error({ err, chatId: task.target.chatId, missed: missed.length }, "could not send the missed-reminders summary");
      }
    }
  }
}
