/** `/pair`: owners approve pairing codes from their own chat, or list the pending ones. */
import type { ChatCommand } from "../core/commands.js";
import type { ChannelName } from "../core/types.js";
import type { AccessControl } from "./access-control.js";
import { channelNamed } from "./pairing.js";
import { describeApproval, describeDenial, describePending } from "./pairing-text.js";

export function pairingCommands(access: AccessControl, now: () => number = Date.now): ChatCommand[] {
  return [
    {
      name: "pair",
      usage: "[deny] [channel] <code>",
      summary: "approve (or deny) a pairing code (owners only)",
      menu: "owners",
      run: async (args, ctx) => {
        const { channel, sender } = ctx.message;
        const { t } = ctx.speech;
        if (!access.isOwner(channel, sender.id)) {
          ctx.log.info({ audit: "refused", userId: sender.id, reason: "/pair from a non-owner" }, "message refused");
          return t("pairing.ownersOnly");
        }
        const words = args.split(/\s+/).filter((word) => word !== "");
        if (words.length === 0) {
          const pending = describePending(await access.pairing.pending(), now(), t);
          return (pending.length > 0 ? [t("pairing.waiting"), ...pending] : [t("pairing.none"), t("pairing.usage")]).join("\n");
        }
        const denying = words[0]?.toLowerCase() === "deny";
        const target = parseTarget(denying ? words.slice(1) : words, channel, access.pairing.channelNames);
        if (!target) return t("pairing.usage");
        if (denying) {
          const denied = await access.pairing.deny(target.channel, target.code);
          ctx.log.info({ pairedChannel: target.channel, denied: denied !== undefined }, "pairing request denied");
          return describeDenial(denied, target.channel, target.code, t);
        }
        const approval = await access.pairing.approve(target.channel, target.code, `${channel}:${sender.id}`);
        ctx.log.info({ pairedChannel: target.channel, ok: approval.ok, ...(approval.ok ? {} : { reason: approval.reason }) }, "pairing approval");
        return describeApproval(approval, target.channel, target.code, t);
      },
    },
  ];
}

function parseTarget(words: string[], here: ChannelName, channels: readonly ChannelName[]): { channel: ChannelName; code: string } | undefined {
  const [first, second, ...rest] = words;
  if (first === undefined || rest.length > 0) return undefined;
  if (second === undefined) return { channel: here, code: first };
  const channel = channelNamed(first, channels);
  return channel ? { channel, code: second } : undefined;
}
