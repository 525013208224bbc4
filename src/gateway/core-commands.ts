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
    { name: "help", summary: "show this help", menu: "everyone", run: async (_args, ctx) => helpText(deps.config.agent.name, deps.allCommands(), ctx.speech.t) },
    {
      name: "new",
      aliases: ["reset"],
      menu: "everyone",
      summary: "start a new conversation (forget the history of this chat)",
      run: async (_args, ctx) => {
        try {
          await deps.resetSession(ctx.sessionKey);
          return ctx.speech.t("session.reset");
        } catch {
          return ctx.speech.t("session.resetStopped");
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
        const { t } = ctx.speech;
        const { running, queued } = deps.queue.cancel(ctx.sessionKey);
        await deps.stops.announce(ctx.sessionKey);
        if (running) return queued > 0 ? t("session.stoppedAndDropped", { count: queued }) : t("session.stopped");
        if (queued > 0) return t("session.dropped", { count: queued });
        return t(deps.stops.shared ? "session.nothingRunningHere" : "session.nothingRunning");
      },
    },
  ];
}

async function statusText(deps: CoreCommandDeps, ctx: CommandContext, startedAt: number): Promise<string> {
  const { sessionKey } = ctx;
  const { t } = ctx.speech;
  const lines = [t("status.session", { session: sessionKey })];
  const primary = primaryEntry(deps.config.llm);
  lines.push(deps.agent && primary ? t("status.model", { model: String(primary.model), provider: primary.provider }) : t("status.noModel", { problem: String(deps.llmProblem) }));
  if (deps.agent && deps.isOwner(ctx.message)) lines.push(...deps.agent.modelStates().map((state) => `- ${modelStateText(state, { speech: ctx.speech, zone: deps.config.agent.timezone })}`));
  if (deps.agent) {
    const info = await deps.agent.sessionInfo(sessionKey);
    const values = { messages: info.messages, tokens: info.estimatedTokens };
    lines.push(t(info.summarized ? "status.historySummarized" : "status.history", values));
  }
  const state = deps.queue.state(sessionKey);
  const turn = state.running ? "running" : "idle";
  lines.push(state.queued > 0 ? t(`status.${turn}Queued`, { queued: state.queued }) : t(`status.${turn}`));
  lines.push(t("status.uptime", { seconds: Math.round((Date.now() - startedAt) / 1000) }));
  return lines.join("\n");
}

