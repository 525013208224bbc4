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
        const owner = { channel: message.channel, userId: message.sender.id, chatId: message.chat.id };
        const now = clock.now();
        if (args.trim().toLowerCase() !== "all") {
          const own = await reader.current("user", owner, now);
          return ["Your model use:", totalsLine("Today", own.daily), totalsLine("This month", own.monthly)].join("\n");
        }
        if (!deps.isOwner(ctx)) return "Only owners can see everyone's use. /usage shows your own.";
        const all = await reader.current("global", owner, now);
        const top = (await reader.report("user", reader.monthStart(now), now)).slice(0, TOP_USERS);
        return [
          "Everyone's model use:",
          totalsLine("Today", all.daily),
          totalsLine("This month", all.monthly),
          ...(top.length > 0 ? ["Most this month:", ...top.map((row) => `- ${row.name}: ${formatTokens(row.input + row.output)} tokens, cost ${formatCost(row.cost)}${withImages(row, ", ")}`)] : []),
        ].join("\n");
      },
    },
  ];
}
