/** The router's own slash commands: /help, /new, /status and /stop. */
import type { Agent } from "../agent/agent.js";
import { modelStateText } from "../agent/model-health.js";
import type { ChatCommand, CommandContext } from "../core/commands.js";
import type { InboundMessage } from "../core/types.js";
import type { CoreConfig } from "../infra/config/core-schema.js";
import { primaryEntry } from "../infra/config/model-entries.js";
import { helpText } from "./commands.js";
import type { SessionQueue } from "./session-queue.js";
import type { StopRelay } from "./stop-relay.js";

export interface CoreCommandDeps {
  config: CoreConfig;
  agent: Agent | null;
  llmProblem: string | null;
  /** Whether the sender is an owner: owners' /status shows each model's state. */
  isOwner: (message: InboundMessage) => boolean;
  queue: SessionQueue;
  stops: StopRelay;
  /** Every command of the gateway, for /help (known only once all parts have added theirs). */
  allCommands: () => readonly ChatCommand[];
  resetSession: (sessionKey: string) => Promise<void>;
}

export function coreCommands(deps: CoreCommandDeps): ChatCommand[] {
  const startedAt = Date.now();
  return [
    { name: "help", summary: "show this help", menu: "everyone", run: async () => helpText(deps.config.agent.name, deps.allCommands()) },
    {
      name: "new",
      aliases: ["reset"],
      menu: "everyone",
      summary: "start a new conversation (forget the history of this chat)",
      run: async (_args, ctx) => {
        try {
          await deps.resetSession(ctx.sessionKey);
          return "Started a new conversation. Earlier messages are forgotten.";
        } catch {
          return "Stopped before the conversation was reset.";
        }
      },
    },
    {
      name: "status",
      summary: "show the model, this session's size and whether a turn is running",
      menu: "everyone",
      run: (_args, ctx) => statusText(deps, ctx, startedAt),
    },
    {
      name: "stop",
      menu: "everyone",
      summary: "cancel the running turn and drop queued messages",
      run: async (_args, ctx) => {
        const { running, queued } = deps.queue.cancel(ctx.sessionKey);
        await deps.stops.announce(ctx.sessionKey);
        const dropped = queued > 0 ? ` and dropped ${queued} queued message${queued === 1 ? "" : "s"}` : "";
        if (running) return `Stopped the running turn${dropped}.`;
        if (queued > 0) return `Dropped ${queued} queued message${queued === 1 ? "" : "s"}.`;
        return deps.stops.shared ? "Nothing was running on this replica; the others were told to stop this conversation's turns." : "Nothing is running right now.";
      },
    },
  ];
}

async function statusText(deps: CoreCommandDeps, ctx: CommandContext, startedAt: number): Promise<string> {
  const { sessionKey } = ctx;
  const lines = [`Session: ${sessionKey}`];
  const primary = primaryEntry(deps.config.llm);
  lines.push(deps.agent && primary ? `Model: ${primary.model} (${primary.provider})` : `Model: not configured (${deps.llmProblem})`);
  if (deps.agent && deps.isOwner(ctx.message)) lines.push(...deps.agent.modelStates().map((state) => `- ${modelStateText(state)}`));
  if (deps.agent) {
    const info = await deps.agent.sessionInfo(sessionKey);
    lines.push(`History: ${info.messages} messages, about ${info.estimatedTokens} tokens${info.summarized ? ", older turns summarized" : ""}`);
  }
  const state = deps.queue.state(sessionKey);
  lines.push(`Turn: ${state.running ? "running" : "idle"}${state.queued > 0 ? `, ${state.queued} queued` : ""}`);
  lines.push(`Uptime: ${Math.round((Date.now() - startedAt) / 1000)} s`);
  return lines.join("\n");
}

