/** /remind, /tasks, /cancel and /timezone: reminders without the model, through the router's slash commands. */
import type { ChatCommand, CommandContext } from "../core/commands.js";
import type { Speech } from "../core/i18n.js";
import { targetOf } from "../core/types.js";
import { userActor } from "./access.js";
import { parseReminder } from "./natural.js";
import { confirmationOf, taskLine } from "./render.js";
import { TaskError, type Scheduler } from "./scheduler.js";
import { spokenRefusal } from "./spoken.js";
import type { Actor } from "./types.js";
import { WhenError, zoneOrThrow } from "./when.js";
import type { ZoneScope } from "./zone-preferences.js";

export interface SchedulerCommandsOptions {
  /** The access policy's answer to "is this sender the owner?"; absent, nobody is (they see their own tasks). */
  isOwner?: (ctx: CommandContext) => boolean | Promise<boolean>;
}

const NAME_LENGTH = 40;
/** Cancel buttons under /tasks for at most this many tasks (Discord allows 25 buttons per message). */
const MAX_CANCEL_BUTTONS = 10;
const BUTTON_NAME_LENGTH = 24;

export function schedulerCommands(scheduler: Scheduler, opts: SchedulerCommandsOptions = {}): ChatCommand[] {
  const actorOf = async (ctx: CommandContext): Promise<Actor> =>
    userActor(ctx.message.channel, ctx.message.sender.id, (await opts.isOwner?.(ctx)) === true);
  const scopeOf = (ctx: CommandContext): ZoneScope => ({
    channel: ctx.message.channel,
    chatId: ctx.message.chat.id,
    userId: ctx.message.sender.id,
  });

  return [
    {
      name: "remind",
      menu: "everyone",
      summary: "set a reminder: /remind in 10m stretch, /remind every weekday 9:00 standup",
      usage: "<when> <what>",
      run: (args, ctx) =>
        answerRefusals(ctx.speech, async () => {
          const { message } = ctx;
          const { zone } = await scheduler.zones.resolve(scopeOf(ctx));
          const parsed = parseReminder(args, scheduler.clock.now(), zone);
          if (!parsed) return ctx.speech.t("reminders.usage");
          const name = shorten(parsed.text, NAME_LENGTH);
          const { task } = await scheduler.create(
            {
              name,
              kind: "reminder",
              text: parsed.text,
              when: parsed.when,
              target: targetOf(message),
              chatType: message.chat.type,
              creator: {
                channel: message.channel,
                userId: message.sender.id,
                ...(message.sender.name ? { name: message.sender.name } : {}),
                ...(message.locale ? { locale: message.locale } : {}),
              },
              agent: ctx.agentId,
            },
            await actorOf(ctx),
          );
          const { speech } = ctx;
          return `${confirmationOf(task, scheduler.clock.now(), speech)}\n${speech.t("reminders.cancelHint", { id: task.id })}`;
        }),
    },
    {
      name: "tasks",
      menu: "everyone",
      summary: "list your reminders and scheduled tasks",
      usage: "[all]",
      run: (args, ctx) =>
        answerRefusals(ctx.speech, async () => {
          const { t } = ctx.speech;
          const tasks = await scheduler.list(await actorOf(ctx), { everyone: args.trim().toLowerCase() === "all" });
          if (tasks.length === 0) return t("reminders.none");
          const text = [t("reminders.listTitle", { count: tasks.length }), ...tasks.map((task) => taskLine(task, ctx.speech)), "", t("reminders.listFooter")].join("\n");
          const buttons = tasks.slice(0, MAX_CANCEL_BUTTONS).map((task) => [
            { label: t("reminders.cancelButton", { name: shorten(task.name, BUTTON_NAME_LENGTH) }), run: `/cancel ${task.id}`, style: "danger" as const },
          ]);
          return { text, buttons };
        }),
    },
    {
      name: "cancel",
      summary: "cancel a reminder or scheduled task",
      usage: "<id>",
      run: (args, ctx) =>
        answerRefusals(ctx.speech, async () => {
          const id = args.trim();
          if (id === "") return ctx.speech.t("reminders.cancelUsage");
          const task = await scheduler.cancel(id, await actorOf(ctx));
          return ctx.speech.t("reminders.cancelled", { name: task.name, id: task.id });
        }),
    },
    {
      name: "timezone",
      summary: "show or set your time zone (/timezone Europe/Berlin), or the chat's (/timezone chat Asia/Shanghai)",
      usage: "[chat] [Area/City]",
      run: (args, ctx) =>
        answerRefusals(ctx.speech, async () => {
          const { speech } = ctx;
          const { t } = speech;
          const [first, second] = args.trim().split(/\s+/).filter((word) => word !== "");
          const scope = scopeOf(ctx);
          if (first === undefined) {
            const { zone, source } = await scheduler.zones.resolve(scope);
            const from = t(source === "user" ? "timezone.sourceUser" : source === "chat" ? "timezone.sourceChat" : "timezone.sourceDefault");
            return t("timezone.current", { zone, source: from, now: speech.time(scheduler.clock.now(), zone) });
          }
          if (first.toLowerCase() === "chat") {
            if (second === undefined) return t("timezone.chatUsage");
            const zone = zoneOrThrow(second);
            await scheduler.zones.setForChat(scope, zone);
            return t("timezone.chatSet", { zone });
          }
          const zone = zoneOrThrow(first);
          await scheduler.zones.setForUser(scope, zone);
          return t("timezone.userSet", { zone, now: speech.time(scheduler.clock.now(), zone) });
        }),
    },
  ];
}

function shorten(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

/**
 * A refusal (bad time, unknown task, over the cap) is the answer itself, in the sender's words where it has them;
 * anything else is the router's to report.
 */
async function answerRefusals<T>(speech: Speech, work: () => Promise<T>): Promise<T | string> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof TaskError || err instanceof WhenError) return err.spoken ? spokenRefusal(err.spoken, speech) : err.message;
    throw err;
  }
}
