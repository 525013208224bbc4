/** `switchboard pairing list [CHANNEL] | approve CHANNEL CODE | revoke CHANNEL USER_ID`, on the gateway's store. */
import { InvalidArgumentError, type Command } from "commander";
import type { ChannelName } from "../core/types.js";
import type { Store } from "../infra/store/types.js";
import { channelNamed, PairingBook } from "./pairing.js";
import { describeApproval, describeMembers, describePending } from "./pairing-text.js";

export interface PairingCliDeps {
  /** Opens the store the gateway uses; called when a command runs, after global options are parsed. */
  openStore(): Promise<Store>;
  /** The channels a pairing can be on. */
  channels: readonly ChannelName[];
  /** Where the commands print; standard output by default. */
  out?: (line: string) => void;
  now?: () => number;
}

export function registerPairingCommands(program: Command, deps: PairingCliDeps): void {
  const out = deps.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const now = deps.now ?? Date.now;
  const choices = `one of ${deps.channels.join(", ")}`;
  const parseChannel = (value: string): ChannelName => {
    const channel = channelNamed(value, deps.channels);
    if (!channel) throw new InvalidArgumentError(`expected ${choices}`);
    return channel;
  };
  const withBook = async (fn: (book: PairingBook) => Promise<void>): Promise<void> => {
    const store = await deps.openStore();
    try {
      await fn(new PairingBook(store, deps.channels, now));
    } finally {
      await store.close();
    }
  };
  const pairing = program.command("pairing").description("approve, list and revoke DM pairings");

  pairing
    .command("list")
    .argument("[channel]", choices, parseChannel)
    .description("list waiting pairing requests and paired users")
    .action((channel: ChannelName | undefined) =>
      withBook(async (book) => {
        const pending = describePending(await book.pending(channel), now());
        const members = describeMembers(await book.members(channel));
        out(pending.length > 0 ? `Waiting for approval:\n${pending.join("\n")}` : "No pairing requests are waiting.");
        out(members.length > 0 ? `Paired users:\n${members.join("\n")}` : "No paired users.");
      }),
    );

  pairing
    .command("approve")
    .argument("<channel>", choices, parseChannel)
    .argument("<code>", "the code the user was given")
    .description("approve a pairing code: its user becomes a member")
    .action((channel: ChannelName, code: string) =>
      withBook(async (book) => {
        const approval = await book.approve(channel, code, "cli");
        out(describeApproval(approval, channel, code));
        if (!approval.ok) process.exitCode = 1;
      }),
    );

  pairing
    .command("revoke")
    .argument("<channel>", choices, parseChannel)
    .argument("<userId>", "the user's id on that channel")
    .description("remove a user's pairing (and any code they are waiting with)")
    .action((channel: ChannelName, userId: string) =>
      withBook(async (book) => {
        const removed = await book.revoke(channel, userId);
        out(removed ? `Revoked ${channel}:${userId}.` : `${channel}:${userId} is not paired and has no pending code.`);
        if (!removed) process.exitCode = 1;
      }),
    );
}
