/** /memory and /forget: people see and delete what the bot keeps about them, without the model. */
import type { ChatCommand, CommandContext } from "../core/commands.js";
import type { Translate } from "../core/i18n.js";
import type { Memory } from "./memory.js";
import { PROFILE_FIELDS, type Profile } from "./profile.js";
import { requesterOfMessage } from "./turn-recall.js";
import { MemoryError, type MemoryRecord } from "./types.js";

export interface MemoryCommandsOptions {
  /** Owners may delete any of a group's shared memories; others only those they added. */
  isOwner?: (ctx: CommandContext) => boolean | Promise<boolean>;
}

/** Lines shown per list; /memory is a chat message, not an export. */
const SHOWN = 30;

export function memoryCommands(memory: Memory, opts: MemoryCommandsOptions = {}): ChatCommand[] {
  return [
    {
      name: "memory",
      summary: "show what I remember about you (in a group: what the group shares)",
      run: async (_args, ctx) => {
        const { t } = ctx.speech;
        const requester = requesterOfMessage(ctx.message);
        const user = { channel: requester.channel, userId: requester.userId };
        const own = await memory.engine.list({ kind: "user", ...user });
        const footer = t("memory.footer");
        if (requester.chatType === "direct") {
          const profile = profileLine(await memory.profiles.get(user), t);
          return [t("memory.directTitle", { count: own.length }), ...listLines(own, t), "", profile, "", footer].join("\n");
        }
        // The answer goes to the whole group: the sender's own memories and profile stay out of it.
        const shared = await memory.engine.list({ kind: "chat", channel: requester.channel, chatId: requester.chatId });
        return [
          t("memory.groupTitle", { count: shared.length }),
          ...listLines(shared, t),
          "",
          t("memory.personal", { memories: t("memory.count", { count: own.length }) }),
          footer,
        ].join("\n");
      },
    },
    {
      name: "forget",
      summary: "delete one memory (/forget <id>) or everything I keep about you (/forget all)",
      usage: "<id> | all",
      run: async (args, ctx) => {
        const { t } = ctx.speech;
        const requester = requesterOfMessage(ctx.message);
        const target = args.trim();
        if (target === "") return t("memory.forgetUsage");
        if (target.toLowerCase() === "all") {
          const gone = await memory.forgetPerson({ channel: requester.channel, userId: requester.userId });
          ctx.log.info({ audit: "forget-all", memories: gone.memories, profile: gone.profile }, "memories forgotten");
          return t(gone.profile ? "memory.forgotAllAndProfile" : "memory.forgotAll", { memories: t("memory.count", { count: gone.memories }) });
        }
        try {
          const moderator = (await opts.isOwner?.(ctx)) === true;
          const forgotten = await memory.engine.forget(requester, target, { moderator });
          return t("memory.forgot", { id: forgotten.id, content: forgotten.content });
        } catch (err) {
          if (!(err instanceof MemoryError)) throw err;
          const id = target.toLowerCase();
          if (err.code === "not_found") return t("memory.notFound", { id });
          if (err.code === "denied") return t("memory.notYours", { id });
          return err.message;
        }
      },
    },
  ];
}

function listLines(items: readonly MemoryRecord[], t: Translate): string[] {
  if (items.length === 0) return [t("memory.nothing")];
  const shown = items.slice(0, SHOWN).map((m) => `${m.id} · ${t(`memory.kind.${m.kind}`)} · ${m.createdAt.slice(0, 10)} · ${m.content}`);
  return items.length > SHOWN ? [...shown, t("memory.older", { count: items.length - SHOWN })] : shown;
}

function profileLine(profile: Profile, t: Translate): string {
  const known = PROFILE_FIELDS.flatMap((f) => (profile.fields[f] === undefined ? [] : [t("memory.profileField", { label: t(`memory.field.${f}`), value: profile.fields[f] })]));
  return known.length > 0 ? t("memory.profile", { fields: known.join(t("memory.profileSeparator")) }) : t("memory.profileEmpty");
}
