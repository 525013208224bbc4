/**
 * One-shot tasks that came due more than the grace period ago are not sent late: they are marked missed, and
 * each creator gets one message per chat listing what they missed, instead of one per reminder.
 */
import { describeLocalTime } from "../core/time.js";
import type { Logger } from "../infra/log.js";
import type { Delivery } from "./delivery.js";
import { formatDuration } from "./durations.js";
import type { TaskRecord } from "./types.js";

interface MissedGroup {
  /** Any of the group's tasks: they share the chat and the creator, which is all notify needs. */
  task: TaskRecord;
  missed: Array<{ slot: number; line: string }>;
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
    group.missed.push({ slot, line: `• "${task.name}" (${task.id}), due ${describeLocalTime(new Date(slot), task.timezone)}` });
    this.groups.set(key, group);
  }

  /** Sends each creator their summary; a failed send is logged, not retried later. */
  async flush(delivery: Delivery, signal: AbortSignal, log: Logger): Promise<void> {
    const groups = [...this.groups.values()];
    this.groups = new Map();
    for (const { task, missed } of groups) {
      // Runs finish in any order; the list goes by due time.
      const lines = missed.sort((a, b) => a.slot - b.slot).map((m) => m.line);
      const count = lines.length === 1 ? "1 reminder" : `${lines.length} reminders`;
      const text =
        `While I was offline, ${count} came due more than ${formatDuration(this.graceMs)} ago; ` +
        `too late to send, so I marked ${lines.length === 1 ? "it" : "them"} missed:\n${lines.join("\n")}`;
      try {
        await delivery.notify(task, text, signal);
      } catch (err) {
        log.error({ err, chatId: task.target.chatId, missed: lines.length }, "could not send the missed-reminders summary");
      }
    }
  }
}
