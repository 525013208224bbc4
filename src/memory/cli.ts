/** `switchboard memory list|forget --user channel:id`: the operator's view of what is kept about a person. */
import { InvalidArgumentError, type Command } from "commander";
import type { ChannelName } from "../core/types.js";
import type { Store } from "../infra/store/types.js";
import type { Memory } from "./memory.js";
import { PROFILE_FIELDS, PROFILE_LABELS, type ProfileUser } from "./profile.js";
import { MemoryError } from "./types.js";

export interface MemoryCliSetup {
  memory: Memory;
  /** Opened for the command; closed when it is done. */
  store: Store;
}

export interface MemoryCliDeps {
  /** Called when a command runs, after the program has parsed its global options (--config). */
  setup(): Promise<MemoryCliSetup>;
  /** The channels a person can be on. */
  channels: readonly ChannelName[];
  out?: (line: string) => void;
}

const USER_HELP = "the person, as channel:id (e.g. telegram:123456, web:alice)";

export function registerMemoryCommands(program: Command, deps: MemoryCliDeps): void {
  const out = deps.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const parseUser = (value: string) => parseUserOn(value, deps.channels);
  const withMemory = async (work: (memory: Memory) => Promise<void>): Promise<void> => {
    const { memory, store } = await deps.setup();
    try {
      await work(memory);
    } catch (err) {
      if (!(err instanceof MemoryError)) throw err;
      out(err.message);
      process.exitCode = 1;
    } finally {
      await store.close();
    }
  };
  const memory = program.command("memory").description("list or delete what the bot remembers about a person");

  memory
    .command("list")
    .requiredOption("-u, --user <channel:id>", USER_HELP, parseUser)
    .description("list a person's memories (newest first) and profile")
    .action((opts: { user: ProfileUser }) =>
      withMemory(async (m) => {
        const items = await m.engine.list({ kind: "user", ...opts.user });
        for (const item of items) out(`${item.id}  ${item.kind.padEnd(10)} ${item.createdAt.slice(0, 10)}  ${item.content}`);
        out(`${memoriesCount(items.length)} of ${opts.user.channel}:${opts.user.userId}.`);
        const profile = await m.profiles.get(opts.user);
        for (const field of PROFILE_FIELDS) {
          const value = profile.fields[field];
          if (value !== undefined) out(`profile ${PROFILE_LABELS[field]}: ${value}`);
        }
      }),
    );

  memory
    .command("forget")
    .argument("<id>", "a memory id, or all: every memory and the profile")
    .requiredOption("-u, --user <channel:id>", USER_HELP, parseUser)
    .description("delete one of a person's memories, or everything kept about them")
    .action((id: string, opts: { user: ProfileUser }) =>
      withMemory(async (m) => {
        if (id.toLowerCase() === "all") {
          const gone = await m.forgetPerson(opts.user);
          out(`Forgot ${memoriesCount(gone.memories)}${gone.profile ? " and the profile" : ""} of ${opts.user.channel}:${opts.user.userId}.`);
          return;
        }
        // As the person themselves in a direct chat: their own memories only.
        const requester = { ...opts.user, chatId: opts.user.userId, chatType: "direct" as const };
        const forgotten = await m.engine.forget(requester, id);
        out(`Forgot ${forgotten.id}: ${forgotten.content}`);
      }),
    );
}

function parseUserOn(value: string, channels: readonly ChannelName[]): ProfileUser {
  const colon = value.indexOf(":");
  const channel = value.slice(0, colon) as ChannelName;
  const userId = value.slice(colon + 1);
  if (colon < 0 || !channels.includes(channel) || userId === "") {
    throw new InvalidArgumentError(`expected channel:id with a channel of ${channels.join(", ")}, e.g. telegram:123456`);
  }
  return { channel, userId };
}

/** "1 memory", "3 memories" */
function memoriesCount(n: number): string {
  return `${n} ${n === 1 ? "memory" : "memories"}`;
}
