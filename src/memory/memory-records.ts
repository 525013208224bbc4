/**
 * Memories in the store, one document per owner (a person, or a group chat), beside a small revision key. A
 * reader checks the revision (one small read) to know whether its cached index is current; a writer changes the
 * document under the owner's lock, then the revision. An owner left with nothing has no keys at all.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { Namespace, Store } from "../infra/store/types.js";
import { MEMORY_KINDS, MEMORY_SCOPES, ownerKey, type MemoryOwner, type MemoryRecord } from "./types.js";

export interface OwnerDocument {
  items: MemoryRecord[];
  /** Users only: the group chats where they added shared memories, so forgetting all of them finds those too. */
  groupsAuthored?: MemoryOwner[];
}

const channel = z.string().min(1);
/** What is read back is checked: a document another version (or a hand edit) broke is reported, never half-used. */
const ownerDocumentSchema = z.object({
  items: z.array(
    z.object({
      id: z.string().min(1),
      kind: z.enum(MEMORY_KINDS),
      content: z.string(),
      scope: z.enum(MEMORY_SCOPES),
      author: z.object({ channel, userId: z.string() }),
      createdAt: z.string(),
      source: z.enum(["tool", "compaction"]),
      vector: z.string().optional(),
    }),
  ),
  groupsAuthored: z
    .array(z.union([z.object({ kind: z.literal("user"), channel, userId: z.string() }), z.object({ kind: z.literal("chat"), channel, chatId: z.string() })]))
    .optional(),
}) satisfies z.ZodType<OwnerDocument>;

const LOCK = { leaseMs: 30_000, waitMs: 30_000 };
const ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

export class MemoryRecords {
  private readonly ns: Namespace<unknown>;

  constructor(private readonly store: Store) {
    this.ns = store.namespace<unknown>("memory");
  }

  async revision(owner: MemoryOwner): Promise<string | undefined> {
    const rev = await this.ns.get(revKey(owner));
    return typeof rev === "string" ? rev : undefined;
  }

  /** The owner's document and the revision it was read at. */
  async load(owner: MemoryOwner): Promise<{ rev: string | undefined; doc: OwnerDocument }> {
    const rev = await this.revision(owner);
    const stored = await this.ns.get(docKey(owner));
    if (stored === undefined) return { rev, doc: { items: [] } };
    const parsed = ownerDocumentSchema.safeParse(stored);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`The stored memories of ${ownerKey(owner)} are malformed (${issue?.path.join(".")}: ${issue?.message}); left as they are`);
    }
    return { rev, doc: parsed.data };
  }

  /**
   * Changes the owner's document under its lock: `change` edits it in place and returns its result. Returns that
   * result with the revisions before and after, so a cached index can follow without reloading.
   */
  async update<T>(owner: MemoryOwner, change: (doc: OwnerDocument) => T): Promise<{ result: T; before: string | undefined; after: string | undefined }> {
    const key = ownerKey(owner);
    return this.store.coordinator.withLock(`memory:${key}`, async () => {
      const { rev: before, doc } = await this.load(owner);
      const result = change(doc);
      if (doc.items.length === 0 && (doc.groupsAuthored ?? []).length === 0) {
        await this.ns.delete(docKey(owner));
        await this.ns.delete(revKey(owner));
        return { result, before, after: undefined };
      }
      const after = randomBytes(6).toString("hex");
      await this.ns.set(docKey(owner), doc);
      await this.ns.set(revKey(owner), after);
      return { result, before, after };
    }, LOCK);
  }
}

/** A new id not used in `doc`: 8 characters without look-alikes (no 0/o, 1/l/i). */
export function newMemoryId(doc: OwnerDocument): string {
  for (;;) {
    const id = [...randomBytes(8)].map((b) => ID_ALPHABET[b % ID_ALPHABET.length]).join("");
    if (!doc.items.some((item) => item.id === id)) return id;
  }
}

const docKey = (owner: MemoryOwner): string => `doc:${ownerKey(owner)}`;
const revKey = (owner: MemoryOwner): string => `rev:${ownerKey(owner)}`;
