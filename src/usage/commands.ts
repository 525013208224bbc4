/** /usage: the sender's own use (model calls and pictures) today and this month; owners' `/usage all` for the whole gateway. */
import type { ChatCommand, CommandContext } from "../core/commands.js";
import type { Clock } from "../core/clock.js";
import type { UsageReader } from "./ledger.js";
import { formatCost, formatTokens, totalsLine, withImages } from "./texts.js";

const TOP_USERS = 10;

export function usageCommands(deps: { reader: UsageReader; clock: Clock; isOwner: (ctx: CommandContext) => boolean }): ChatCommand[] {
  const { reader, clock } = deps;
  return [
    {
      name: "usage",
      menu: "everyone",
      summary: "your model use today and this month (owners: /usage all)",
      usage: "[all]",
      run: async (args, ctx) => {
        const { message } = ctx;
        const { speech } = ctx;
        const { t } = speech;
        const owner = { channel: message.channel, userId: message.sender.id, chatId: message.chat.id };
        const now = clock.now();
        if (args.trim().toLowerCase() !== "all") {
          const own = await reader.current("user", owner, now);
          return [t("usage.own"), totalsLine(t("usage.today"), own.daily, speech), totalsLine(t("usage.thisMonth"), own.monthly, speech)].join("\n");
        }
        if (!deps.isOwner(ctx)) return t("usage.ownersOnly");
        const all = await reader.current("global", owner, now);
        const top = (await reader.report("user", reader.monthStart(now), now)).slice(0, TOP_USERS);
        return [
          t("usage.everyone"),
          totalsLine(t("usage.today"), all.daily, speech),
          totalsLine(t("usage.thisMonth"), all.monthly, speech),
          ...(top.length > 0
            ? [
                t("usage.top"),
                ...top.map((row) =>
                  t("usage.topLine", { name: row.name, tokens: formatTokens(row.input + row.output), cost: formatCost(row.cost), images: withImages(row, t("usage.listSeparator"), t) }),
                ),
              ]
            : []),
        ].join("\n");
      },
    },
  ];
}
