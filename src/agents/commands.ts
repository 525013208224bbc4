/** /agent: which agent answers this chat and, where routing allows a choice, switching it to another. */
import type { ChatCommand } from "../core/commands.js";
import type { AgentProfile } from "../core/agents.js";
import type { Translate } from "../core/i18n.js";
import type { Agents } from "./directory.js";

export function agentCommands(agents: Agents): ChatCommand[] {
  return [
    {
      name: "agent",
      menu: "everyone",
      summary: "show which agent answers here, or switch to another: /agent <id>",
      usage: "[id]",
      run: async (args, ctx) => {
        const { t } = ctx.speech;
        const wanted = args.trim().toLowerCase();
        if (wanted === "") return describe(await agents.choose(ctx.message), t);
        const switched = await agents.switchTo(ctx.message, wanted);
        if (switched.ok) return t("agents.switched", { agent: label(switched.agent) });
        if (switched.refusal === "fixed") return t("agents.notSwitchable");
        return t("agents.unknown", { id: wanted, choices: switched.choices.join(", ") });
      },
    },
  ];
}

function describe(choice: { agent: AgentProfile; switchable: readonly AgentProfile[] }, t: Translate): string {
  const now = t("agents.current", { agent: label(choice.agent) });
  if (choice.switchable.length === 0) return `${now} ${t("agents.fixed")}`;
  const others = choice.switchable.map((agent) => `- ${agent.id}${agent.name ? ` (${agent.name})` : ""}`);
  return [now, t("agents.switchable"), ...others, "", t("agents.switchHint")].join("\n");
}

function label(agent: AgentProfile): string {
  return agent.name ? `${agent.name} (${agent.id})` : agent.id;
}
