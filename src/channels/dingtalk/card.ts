/**
 * Live replies as a DingTalk AI card: the app's card template (channels.dingtalk.cardTemplateId) is created and
 * delivered into the chat (`POST /v1.0/card/instances/createAndDeliver`, callbackType STREAM), then its text
 * variable is streamed (`PUT /v1.0/card/streaming`, the whole text each time) and finalized with the answer. A turn
 * that ends before anything was shown is sent as plain messages.
 */
import { randomUUID } from "node:crypto";
import type { OutboundTarget, SentMessage } from "../../core/types.js";
import type { Presenter } from "../live-reply.js";
import type { DingtalkApi } from "./api.js";
import { isGroupChat } from "./normalize.js";
import type { DingtalkSender } from "./send.js";

export interface CardOptions {
  api: DingtalkApi;
  sender: DingtalkSender;
  templateId: string;
  contentKey: string;
  robotCode: string;
}

export class AiCardPresenter implements Presenter {
  private outTrackId: string | undefined;
  private shown = "";

  constructor(
    private readonly opts: CardOptions,
    private readonly to: OutboundTarget,
  ) {}

  async show(text: string): Promise<void> {
    this.outTrackId ??= await this.create();
    await this.stream(text, false);
    this.shown = text;
  }

  async finish(text: string): Promise<SentMessage[]> {
    if (this.outTrackId === undefined) return this.opts.sender.sendText(this.to, text);
    await this.stream(text, true);
    return [{ messageId: this.outTrackId, sentAt: new Date() }];
  }

  async cancel(): Promise<void> {
    if (this.outTrackId !== undefined) await this.stream(this.shown, true);
  }

  private async create(): Promise<string> {
    const { api, templateId, contentKey, robotCode } = this.opts;
    const outTrackId = `sb_${randomUUID()}`;
    const group = isGroupChat(this.to.chatId);
    await api.call("POST", "/v1.0/card/instances/createAndDeliver", {
      cardTemplateId: templateId,
      outTrackId,
      callbackType: "STREAM",
      cardData: { cardParamMap: { [contentKey]: "" } },
      openSpaceId: group ? `dtv1.card//IM_GROUP.${this.to.chatId}` : `dtv1.card//IM_ROBOT.${this.to.chatId}`,
      ...(group
        ? { imGroupOpenSpaceModel: { supportForward: true }, imGroupOpenDeliverModel: { robotCode } }
        : { imRobotOpenSpaceModel: { supportForward: true }, imRobotOpenDeliverModel: { spaceType: "IM_ROBOT" } }),
    });
    return outTrackId;
  }

  private async stream(text: string, finalize: boolean): Promise<void> {
    await this.opts.api.call("PUT", "/v1.0/card/streaming", {
      outTrackId: this.outTrackId,
      guid: randomUUID(),
      key: this.opts.contentKey,
      content: text,
      isFull: true,
      isFinalize: finalize,
      isError: false,
    });
  }
}
