/**
 * The memory side of the agent's memory port: recalls the sender's profile and relevant memories for a turn, and
 * keeps what compaction proposed. The shapes match the agent's port structurally; neither side imports the other.
 */
import type { InboundMessage } from "../core/types.js";
import type { Logger } from "../infra/log.js";
import type { MemoryEngine } from "./memory-engine.js";
import { PROFILE_FIELDS, PROFILE_LABELS, type ProfileStore } from "./profile.js";
import type { AgentProfile } from "../core/agents.js";
import { MEMORY_KINDS, MemoryError, partitionOf, type MemoryKind, type Requester } from "./types.js";

export function requesterOfMessage(message: InboundMessage, agent?: AgentProfile): Requester {
  const partition = partitionOf(agent);
  return { channel: message.channel, userId: message.sender.id, chatId: message.chat.id, chatType: message.chat.type, ...(partition ? { partition } : {}) };
}

/** `fromCompaction` off: compaction is not asked for memories (the port has no keepProposals). */
export function createTurnRecall(engine: MemoryEngine, profiles: ProfileStore, opts: { fromCompaction?: boolean } = {}) {
  const recall = async (message: InboundMessage, _log?: Logger, agent?: AgentProfile) => {
    const requester = requesterOfMessage(message, agent);
    const [recollection, profile] = await Promise.all([
      engine.recall(requester, message.text),
      profiles.get({ channel: message.channel, userId: message.sender.id }),
    ]);
    return {
      memories: recollection.memories.map(({ id, kind, scope, content, createdAt }) => ({ id, kind, scope, content, createdAt })),
      stored: recollection.stored,
      profile: {
        known: PROFILE_FIELDS.flatMap((f): Array<[string, string]> => {
          const value = profile.fields[f];
          return value === undefined ? [] : [[PROFILE_LABELS[f], value]];
        }),
        unknown: PROFILE_FIELDS.filter((f) => profile.fields[f] === undefined && !profile.skipped.includes(f)).map((f) => PROFILE_LABELS[f]),
        declined: profile.skipped.map((f) => PROFILE_LABELS[f]),
      },
    };
  };

  /** Proposals are the sender's own memories (in a group, the group's: everyone there saw those turns). */
  const keepProposals = async (message: InboundMessage, proposals: Array<{ kind: string; content: string }>, log: Logger, agent?: AgentProfile) => {
    const requester = requesterOfMessage(message, agent);
    const scope = message.chat.type === "group" ? "chat" : "user";
    let kept = 0;
    for (const proposal of proposals) {
      const kind = (MEMORY_KINDS as readonly string[]).includes(proposal.kind) ? (proposal.kind as MemoryKind) : "fact";
      try {
        const { duplicate } = await engine.add(requester, { content: proposal.content, kind, scope, source: "compaction" });
        if (!duplicate) kept++;
      } catch (err) {
        if (!(err instanceof MemoryError)) throw err;
        log.info({ reason: err.message }, "a memory proposed by compaction was not kept");
      }
    }
    log.info({ proposed: proposals.length, kept }, "memories proposed by compaction");
  };
  return { recall, ...(opts.fromCompaction ? { keepProposals } : {}) };
}
