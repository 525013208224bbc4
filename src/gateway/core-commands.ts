/** The router's own slash commands: /help, /new, /status and /stop. */
import type { Agent } from "../agent/agent.js";
import type { ChatCommand } from "../core/commands.js";
import type { Translate } from "../core/i18n.js";
import type { CoreConfig } from "../infra/config/core-schema.js";
import { helpText } from "./commands.js";
import type { SessionQueue } from "./session-queue.js";
import type { StopRelay } from "./stop-relay.js";

export interface CoreCommandDeps {
  config: CoreConfig;
  agent: Agent | null;
  llmProblem: string | null;
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
      run: (_args, ctx) => statusText(deps, ctx.sessionKey, startedAt, ctx.speech.t),
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

async function statusText(deps: CoreCommandDeps, sessionKey: string, startedAt: number, t: Translate): Promise<string> {
  const { llm } = deps.config;
  const lines = [t("status.session", { session: sessionKey })];
  lines.push(deps.agent ? t("status.model", { model: String(llm.model), provider: llm.provider }) : t("status.noModel", { problem: String(deps.llmProblem) }));
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
