/**
 * Tells the owners of a new pairing request as soon as its code is issued: a direct message to each owner on a
 * running channel, with Approve and Deny buttons that do what typing `/pair CHANNEL CODE` or `/pair deny CHANNEL
 * CODE` there would do. Only that owner may press them. A notice that cannot be sent is logged; the code stays valid
 * and can still be approved by typing it.
 */
import type { PendingPairing } from "../access/pairing.js";
import { ownerPairingNotice } from "../access/pairing-text.js";
import type { Speech } from "../core/i18n.js";
import type { Outbound } from "../core/outbound.js";
import { ENGLISH } from "../infra/i18n/index.js";
import type { Channel, ChannelName } from "../core/types.js";
import type { Logger } from "../infra/log.js";
import type { ButtonActions } from "./actions.js";

export interface PairingNoticeDeps {
  /** access.owners: "channel:userId". */
  owners: readonly string[];
  channelOf: (name: ChannelName) => Channel | undefined;
  outbound: Outbound;
  actions: ButtonActions;
  log: Logger;
  /** The owner's language; English when absent. */
  speechOf?: (owner: { channel: ChannelName; userId: string }) => Promise<Speech>;
  now?: () => number;
}

/** The AccessControl's onPairingRequest: sends in the background, never throws. */
export function ownerPairingNotifier(deps: PairingNoticeDeps): (request: PendingPairing) => void {
  return (request) => {
    for (const owner of deps.owners) {
      const split = owner.indexOf(":");
      const channelName = owner.slice(0, split);
      const userId = owner.slice(split + 1);
      const channel = deps.channelOf(channelName);
      if (!channel) continue;
      void notify(deps, channel, userId, request).catch((err: unknown) =>
        deps.log.warn({ err, owner, pairedChannel: request.channel }, "could not tell an owner of a pairing request"),
      );
    }
  };
}

async function notify(deps: PairingNoticeDeps, channel: Channel, ownerId: string, request: PendingPairing): Promise<void> {
  const now = deps.now ?? Date.now;
  const code = `${request.channel} ${request.code}`;
  const { t } = (await deps.speechOf?.({ channel: channel.name, userId: ownerId })) ?? ENGLISH;
  const { text, buttons } = await deps.actions.render(
    channel,
    ownerPairingNotice(request, now(), t),
    [
      [
        { label: t("pairing.button.approve"), run: `/pair ${code}`, style: "primary" },
        { label: t("pairing.button.deny"), run: `/pair deny ${code}`, style: "danger" },
      ],
    ],
    // A direct message: on some platforms (Discord) its chat id is not the user id, and only the owner sees it.
    { channel: channel.name, userIds: [ownerId], chatType: "direct" },
  );
  // A user id as the chat id reaches the user's direct chat (Telegram, Discord, Feishu open_id).
  await deps.outbound.sendText({ channel: channel.name, chatId: ownerId }, text, buttons ? { buttons } : {});
}
