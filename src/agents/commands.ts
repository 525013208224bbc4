/** /agent: which agent answers this chat and, where routing allows a choice, switching it to another. */
import type { ChatCommand } from "../core/commands.js";
import type { AgentProfile } from "../core/agents.js";
import type { Agents } from "./directory.js";

export function agentCommands(agents: Agents): ChatCommand[] {
  return [
    {
      name: "agent",
      menu: "everyone",
      summary: "show which agent answers here, or switch to another: /agent <id>",
      usage: "[id]",
      run: async (args, ctx) => {
        const wanted = args.trim().toLowerCase();
        if (wanted === "") return describe(await agents.choose(ctx.message));
        const switched = await agents.switchTo(ctx.message, wanted);
        if (!switched.ok) return switched.reason;
        return `This chat is now answered by ${label(switched.agent)}. Its conversation with you is its own; /agent switches back.`;
      },
    },
  ];
}

function describe(choice: { agent: AgentProfile; switchable: readonly AgentProfile[] }): string {
  const now = `This chat is answered by ${label(choice.agent)}.`;
  if (choice.switchable.length === 0) return `${now} The gateway's routing sets it; it cannot be switched here.`;
  const others = choice.switchable.map((agent) => `- ${agent.id}${agent.name ? ` (${agent.name})` : ""}`);
  return [now, "You can switch this chat to:", ...others, "", "Switch with /agent <id>."].join("\n");
}

function label(agent: AgentProfile): string {
  return agent.name ? `${agent.name} (${agent.id})` : agent.id;
}
