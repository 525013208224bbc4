/**
 * Buttons on QQ: a keyboard under a Markdown message (rows of at most 5 buttons, at most 5 rows), each a callback
 * button whose data is the gateway's action id. A press arrives as INTERACTION_CREATE; it is acknowledged with
 * `PUT /interactions/{id}` (QQ shows the presser a failure otherwise) and handed over once.
 */
import { z } from "zod";
import type { ButtonPressHandler, ButtonRow } from "../../core/types.js";
import type { Logger } from "../../infra/log.js";
import type { Store } from "../../infra/store/types.js";
import type { QqApi } from "./api.js";

const MAX_ROWS = 5;
const MAX_PER_ROW = 5;
const SEEN_TTL_MS = 24 * 3_600_000;

/** The `keyboard` of a message with these rows. */
export function keyboardOf(rows: ButtonRow[]): object {
  return {
    content: {
      rows: rows.slice(0, MAX_ROWS).map((row) => ({
        buttons: row.slice(0, MAX_PER_ROW).map((b) => ({
          id: b.actionId,
          render_data: { label: b.label, visited_label: b.label, style: b.style === "primary" ? 1 : 0 },
          // type 1: a callback to the bot; permission type 2: everyone in the chat may press it.
          action: { type: 1, permission: { type: 2 }, data: b.actionId, unsupport_tips: "Update QQ to use this button" },
        })),
      })),
    },
  };
}

const interactionSchema = z.looseObject({
  id: z.string().min(1),
  chat_type: z.number().optional(),
  group_openid: z.string().optional(),
  group_member_openid: z.string().optional(),
  user_openid: z.string().optional(),
  channel_id: z.string().optional(),
  guild_id: z.string().optional(),
  data: z.looseObject({ resolved: z.looseObject({ button_data: z.string().min(1), message_id: z.string().optional(), user_id: z.string().optional() }) }),
});

export class KeyboardPresses {
  private onPress: ButtonPressHandler | undefined;

  constructor(private readonly opts: { api: QqApi; store: Store; log: Logger }) {}

  attach(onPress: ButtonPressHandler | undefined): void {
    this.onPress = onPress;
  }

  async take(data: unknown): Promise<void> {
    const { api, store, log } = this.opts;
    const parsed = interactionSchema.safeParse(data);
    if (!parsed.success) {
      log.warn({ problems: z.prettifyError(parsed.error) }, "ignored a malformed QQ interaction");
      return;
    }
    const event = parsed.data;
    // Acknowledged first: QQ waits for it before it tells the presser anything.
    await api.call("PUT", `/interactions/${event.id}`, { code: 0 });
    const onPress = this.onPress;
    const chat = event.group_openid
      ? { id: `group:${event.group_openid}`, type: "group" as const }
      : event.user_openid
        ? { id: `c2c:${event.user_openid}`, type: "direct" as const }
        : event.channel_id
          ? { id: `channel:${event.channel_id}`, type: "group" as const }
          : undefined;
    const senderId = event.group_member_openid ?? event.user_openid ?? event.data.resolved.user_id;
    if (!onPress || !chat || !senderId) return;
    if (!(await store.coordinator.setIfAbsent(`qq:interaction:${event.id}`, SEEN_TTL_MS))) return;
    await onPress({
      channel: "qq",
      id: event.id,
      chat,
      sender: { id: senderId },
      actionId: event.data.resolved.button_data,
      messageId: event.data.resolved.message_id ?? "",
      receivedAt: new Date(),
      // QQ has no notice for the presser and no way to take a keyboard off: the acknowledgment is the answer.
      answer: async () => {},
    });
  }
}
