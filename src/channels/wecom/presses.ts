/**
 * Presses on the buttons of a template card (`template_card_event`): the button's key is the gateway's action id.
 * WeCom may push the same event again; the event is taken once. The answer updates the card through
 * `/cgi-bin/message/update_template_card` with the event's ResponseCode: its buttons replaced by a line of text.
 */
import type { ButtonPressHandler, PressAnswer } from "../../core/types.js";
import type { Logger } from "../../infra/log.js";
import type { Store } from "../../infra/store/types.js";
import type { WecomApi } from "./api.js";
import type { WecomEvent } from "./normalize.js";

/** A redelivery comes within seconds; a day is plenty. */
const SEEN_TTL_MS = 24 * 3_600_000;

export interface PressesOptions {
  api: WecomApi;
  agentId: number;
  store: Store;
  log: Logger;
}

export class CardPresses {
  private onPress: ButtonPressHandler | undefined;

  constructor(private readonly opts: PressesOptions) {}

  attach(onPress: ButtonPressHandler | undefined): void {
    this.onPress = onPress;
  }

  async take(event: WecomEvent): Promise<void> {
    const { store, log } = this.opts;
    const onPress = this.onPress;
    const actionId = event.EventKey;
    const taskId = event.TaskId;
    if (!onPress || !actionId || !taskId) {
      log.debug({ taskId }, "ignored a WeCom card event without a handler, key or task id");
      return;
    }
    const id = `${taskId}:${event.FromUserName}:${event.CreateTime}`;
    if (!(await store.coordinator.setIfAbsent(`wecom:press:${id}`, SEEN_TTL_MS))) return;
    const chat = { id: event.FromUserName, type: "direct" as const };
    await onPress({
      channel: "wecom",
      id,
      chat,
      sender: { id: event.FromUserName },
      actionId,
      messageId: taskId,
      receivedAt: new Date(),
      answer: (reply) => this.answer(event, reply),
    });
  }

  private async answer(event: WecomEvent, reply: PressAnswer): Promise<void> {
    if (!reply.clearButtons || !event.ResponseCode) return;
    await this.opts.api.call("POST", "/cgi-bin/message/update_template_card", {
      userids: [event.FromUserName],
      agentid: this.opts.agentId,
      response_code: event.ResponseCode,
      button: { replace_name: [...(reply.notice ?? "✓")].slice(0, 20).join("") },
    });
  }
}
