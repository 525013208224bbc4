/**
 * What the channel knows of its rooms: who is in them (a room of two is a direct chat; names for the model), and
 * invitations, accepted by the `autoJoin` setting. The bot reads no end-to-end encrypted room: invited to one, it
 * joins only to say so, and leaves.
 */
import { LRUCache } from "lru-cache";
import type { Logger } from "../../infra/log.js";
import { enc, type MatrixApi } from "./api.js";
import type { MatrixConfig } from "./config.js";
import { roomEventSchema } from "./normalize.js";
import type { MatrixSender } from "./send.js";

export const ENCRYPTED_ROOM_NOTICE =
  "This room is end-to-end encrypted, and I cannot read encrypted messages. Invite me to a room without encryption, or start a direct chat with encryption off.";

export class RoomDirectory {
  private readonly members = new LRUCache<string, Map<string, string | undefined>>({ max: 2_000 });

  constructor(private readonly api: MatrixApi) {}

  /** Membership changed: asked again next time. */
  forget(roomId: string): void {
    this.members.delete(roomId);
  }

  async isDirect(roomId: string): Promise<boolean> {
    return (await this.membersOf(roomId)).size <= 2;
  }

  async nameOf(roomId: string, userId: string): Promise<string | undefined> {
    return (await this.membersOf(roomId)).get(userId);
  }

  private async membersOf(roomId: string): Promise<Map<string, string | undefined>> {
    const known = this.members.get(roomId);
    if (known) return known;
    const answer = await this.api.call<{ joined?: Record<string, { display_name?: string }> }>({ method: "GET", path: `/_matrix/client/v3/rooms/${enc(roomId)}/joined_members` });
    const members = new Map(Object.entries(answer.joined ?? {}).map(([id, m]) => [id, typeof m.display_name === "string" ? m.display_name : undefined]));
    this.members.set(roomId, members);
    return members;
  }
}

export interface InviteOptions {
  api: MatrixApi;
  sender: MatrixSender;
  botUserId: string;
  policy: MatrixConfig["autoJoin"];
  /** Whether the access config lets the inviter in by name; absent: nobody is. */
  knownUser: ((userId: string) => Promise<boolean>) | undefined;
  log: Logger;
}

/** Accepts or leaves an invitation to `roomId`, whose stripped state is `events`. */
export async function answerInvite(roomId: string, events: unknown[], opts: InviteOptions): Promise<void> {
  const { api, log } = opts;
  const state = events.flatMap((e) => {
    const parsed = roomEventSchema.omit({ event_id: true }).safeParse(e);
    return parsed.success ? [parsed.data] : [];
  });
  const invite = state.find((e) => e.type === "m.room.member" && e.state_key === opts.botUserId && e.content.membership === "invite");
  const inviter = invite?.sender;
  const allowed = opts.policy === "always" || (opts.policy === "invited-by-allowed" && inviter !== undefined && (await opts.knownUser?.(inviter)) === true);
  if (!allowed) {
    log.info({ roomId, inviter, autoJoin: opts.policy }, "not accepting a Matrix invitation (channels.matrix.autoJoin)");
    return;
  }
  await api.call({ method: "POST", path: `/_matrix/client/v3/join/${enc(roomId)}`, body: {} });
  if (!state.some((e) => e.type === "m.room.encryption")) {
    log.info({ roomId, inviter }, "joined a Matrix room on invitation");
    return;
  }
  log.warn({ roomId, inviter }, "invited to an end-to-end encrypted Matrix room, which the bot cannot read; saying so and leaving");
  await opts.sender.sendPart({ channel: "matrix", chatId: roomId }, ENCRYPTED_ROOM_NOTICE, undefined, true);
  await api.call({ method: "POST", path: `/_matrix/client/v3/rooms/${enc(roomId)}/leave`, body: {} });
}
