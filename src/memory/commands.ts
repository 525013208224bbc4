/** /memory and /forget: people see and delete what the bot keeps about them, without the model. */
import type { ChatCommand, CommandContext } from "../core/commands.js";
import type { Memory } from "./memory.js";
import { PROFILE_FIELDS, PROFILE_LABELS, type Profile } from "./profile.js";
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
        const requester = requesterOfMessage(ctx.message);
        const user = { channel: requester.channel, userId: requester.userId };
        const own = await memory.engine.list({ kind: "user", ...user });
        const footer = "Forget one with /forget <id>, everything about you with /forget all.";
        if (requester.chatType === "direct") {
          const profile = profileLine(await memory.profiles.get(user));
          return [`What I remember about you (${own.length}):`, ...listLines(own), "", profile, "", footer].join("\n");
        }
        // The answer goes to the whole group: the sender's own memories and profile stay out of it.
        const shared = await memory.engine.list({ kind: "chat", channel: requester.channel, chatId: requester.chatId });
        return [
          `Shared in this group (${shared.length}):`,
          ...listLines(shared),
          "",
          `I also keep ${memoriesCount(own.length)} about you personally: send /memory in a direct chat with me to see them.`,
          footer,
        ].join("\n");
      },
    },
    {
      name: "forget",
      summary: "delete one memory (/forget <id>) or everything I keep about you (/forget all)",
      usage: "<id> | all",
      run: async (args, ctx) => {
        const requester = requesterOfMessage(ctx.message);
        const target = args.trim();
        if (target === "") return "Usage: /forget <id> (see /memory for the ids), or /forget all.";
        if (target.toLowerCase() === "all") {
          const gone = await memory.forgetPerson({ channel: requester.channel, userId: requester.userId });
          ctx.log.info({ audit: "forget-all", memories: gone.memories, profile: gone.profile }, "memories forgotten");
          const what = `${memoriesCount(gone.memories)}${gone.profile ? " and your profile (time zone included)" : ""}`;
          return `Done: I forgot ${what}. This conversation's history stays until /new.`;
        }
        try {
          const moderator = (await opts.isOwner?.(ctx)) === true;
          const forgotten = await memory.engine.forget(requester, target, { moderator });
          return `Forgot ${forgotten.id}: ${forgotten.content}`;
        } catch (err) {
          if (err instanceof MemoryError) return err.message;
          throw err;
        }
      },
    },
  ];
}

/** "1 memory", "3 memories" */
export function memoriesCount(n: number): string {
  return `${n} ${n === 1 ? "memory" : "memories"}`;
}

function listLines(items: readonly MemoryRecord[]): string[] {
  if (items.length === 0) return ["(nothing)"];
  const shown = items.slice(0, SHOWN).map((m) => `${m.id} · ${m.kind} · ${m.createdAt.slice(0, 10)} · ${m.content}`);
  return items.length > SHOWN ? [...shown, `... and ${items.length - SHOWN} older ones.`] : shown;
}

function profileLine(profile: Profile): string {
  const known = PROFILE_FIELDS.flatMap((f) => (profile.fields[f] === undefined ? [] : [`${PROFILE_LABELS[f]}: ${profile.fields[f]}`]));
  return known.length > 0 ? `Your profile: ${known.join("; ")}` : "Your profile is empty.";
}
