import { afterEach, describe, expect, it } from "vitest";
import { MemoryError } from "../../src/memory/types.js";
import { ANN_DM, ANN_IN_GROUP, BACKENDS, BOB_DM, BOB_IN_GROUP, openMemoryWorld, type MemoryWorld } from "./helpers.js";

let world: MemoryWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const contentsOf = (hits: Array<{ memory: { content: string } }>) => hits.map((hit) => hit.memory.content);

describe.each(BACKENDS)("memory engine on %s", (backend) => {
  it("finds memories by words, prefixes and small typos, best match first", async () => {
    world = await openMemoryWorld(backend);
    const { engine } = world.memory;
    await engine.add(ANN_DM, { content: "Is vegetarian and never eats meat", kind: "preference", scope: "user" });
    await engine.add(ANN_DM, { content: "Works as a nurse on night shifts", kind: "fact", scope: "user" });
    await engine.add(ANN_DM, { content: "Has a cat called Miso", kind: "fact", scope: "user" });

    expect(contentsOf(await engine.search(ANN_DM, "vegetarian", 5))).toEqual(["Is vegetarian and never eats meat"]);
    expect(contentsOf(await engine.search(ANN_DM, "vegetar", 5))).toEqual(["Is vegetarian and never eats meat"]);
    expect(contentsOf(await engine.search(ANN_DM, "vegitarian", 5))).toEqual(["Is vegetarian and never eats meat"]);
    expect(contentsOf(await engine.search(ANN_DM, "night nurse", 5))[0]).toBe("Works as a nurse on night shifts");
    // Only common words in the query: nothing is relevant.
    expect(await engine.search(ANN_DM, "what do I have", 5)).toEqual([]);
  });

  it("finds Chinese text by a Chinese query and Japanese by a Japanese one", async () => {
    world = await openMemoryWorld(backend);
    const { engine } = world.memory;
    await engine.add(ANN_DM, { content: "我是素食主义者，不吃肉", kind: "preference", scope: "user" });
    await engine.add(ANN_DM, { content: "我住在上海浦东", kind: "fact", scope: "user" });
    await engine.add(ANN_DM, { content: "私はベジタリアンです", kind: "preference", scope: "user" });
    await engine.add(ANN_DM, { content: "Likes hiking", kind: "preference", scope: "user" });

    expect(contentsOf(await engine.search(ANN_DM, "素食", 5))[0]).toBe("我是素食主义者，不吃肉");
    expect(contentsOf(await engine.search(ANN_DM, "我吃肉吗", 5))[0]).toBe("我是素食主义者，不吃肉");
    expect(contentsOf(await engine.search(ANN_DM, "上海", 5))).toEqual(["我住在上海浦东"]);
    expect(contentsOf(await engine.search(ANN_DM, "ベジタリアン", 5))).toEqual(["私はベジタリアンです"]);
  });

  it("never shows one person's memories to another, in direct chats or a shared group", async () => {
    world = await openMemoryWorld(backend);
    const { engine } = world.memory;
    await engine.add(ANN_DM, { content: "Ann's secret: allergic to peanuts", kind: "fact", scope: "user" });
    await engine.add(ANN_IN_GROUP, { content: "Ann privately prefers peanut-free snacks", kind: "preference", scope: "user" });
    await engine.add(BOB_IN_GROUP, { content: "Team snacks: peanut butter cookies on Fridays", kind: "event", scope: "chat" });

    const bobDm = contentsOf(await engine.search(BOB_DM, "peanuts peanut", 10));
    expect(bobDm).toEqual([]);
    const bobGroup = contentsOf(await engine.search(BOB_IN_GROUP, "peanuts peanut", 10));
    expect(bobGroup).toEqual(["Team snacks: peanut butter cookies on Fridays"]);
    const annGroup = contentsOf(await engine.search(ANN_IN_GROUP, "peanuts peanut", 10));
    expect(annGroup).toHaveLength(3);
    // The group's memory stays in the group: not in Ann's direct chat.
    expect(contentsOf(await engine.search(ANN_DM, "cookies", 10))).toEqual([]);
    expect((await engine.recall(BOB_DM, "peanut allergy")).stored).toBe(0);
    expect((await engine.stats(BOB_IN_GROUP)).yours.total).toBe(0);
    expect((await engine.stats(BOB_IN_GROUP)).thisChat?.total).toBe(1);
    // Scope "chat" in a direct chat is the person's own memory: nobody else is in that chat.
    const { memory } = await engine.add(BOB_DM, { content: "Bob's chat-scoped note", kind: "note", scope: "chat" });
    expect(memory.scope).toBe("user");
    expect(contentsOf(await engine.search(BOB_IN_GROUP, "chat-scoped note", 5))).toEqual(["Bob's chat-scoped note"]);
    expect(contentsOf(await engine.search(ANN_IN_GROUP, "chat-scoped note", 5))).toEqual([]);
  });

  it("forget: own memories and group memories one added; someone else's group memory only as a moderator", async () => {
    world = await openMemoryWorld(backend);
    const { engine } = world.memory;
    const { memory: own } = await engine.add(ANN_DM, { content: "Plays the cello", kind: "fact", scope: "user" });
    const { memory: shared } = await engine.add(BOB_IN_GROUP, { content: "Standup is at 9:30", kind: "event", scope: "chat" });

    await expect(engine.forget(BOB_DM, own.id)).rejects.toMatchObject({ code: "not_found" });
    await expect(engine.forget(ANN_IN_GROUP, shared.id)).rejects.toMatchObject({ code: "denied" });
    await expect(engine.forget(ANN_DM, "nosuchid")).rejects.toBeInstanceOf(MemoryError);
    expect((await engine.forget(ANN_DM, own.id.toUpperCase())).content).toBe("Plays the cello");
    expect((await engine.forget(ANN_IN_GROUP, shared.id, { moderator: true })).content).toBe("Standup is at 9:30");
    expect(await engine.search(ANN_IN_GROUP, "cello standup", 5)).toEqual([]);
  });

  it("refuses empty, too long and too many memories, and keeps the same content once", async () => {
    world = await openMemoryWorld(backend, { maxPerOwner: 2, maxChars: 40 });
    const { engine } = world.memory;
    await expect(engine.add(ANN_DM, { content: "   ", kind: "fact", scope: "user" })).rejects.toMatchObject({ code: "invalid" });
    await expect(engine.add(ANN_DM, { content: "x".repeat(41), kind: "fact", scope: "user" })).rejects.toThrow(/at most 40 characters/);
    const first = await engine.add(ANN_DM, { content: "Likes tea", kind: "preference", scope: "user" });
    const again = await engine.add(ANN_DM, { content: "likes  TEA", kind: "preference", scope: "user" });
    expect(again).toEqual({ memory: first.memory, duplicate: true });
    await engine.add(ANN_DM, { content: "Likes coffee", kind: "preference", scope: "user" });
    await expect(engine.add(ANN_DM, { content: "Likes water", kind: "preference", scope: "user" })).rejects.toMatchObject({ code: "limit" });
    expect(await engine.list({ kind: "user", channel: "telegram", userId: "ann" })).toHaveLength(2);
  });

  it("sees what another replica (or the CLI) wrote, through the stored revision", async () => {
    world = await openMemoryWorld(backend);
    const { engine } = world.memory;
    expect(await engine.search(ANN_DM, "kayak", 5)).toEqual([]); // no memories yet: the shared empty index
    const replica = await world.openReplica();
    const { memory } = await replica.memory.engine.add(ANN_DM, { content: "Owns a kayak", kind: "fact", scope: "user" });
    expect(contentsOf(await engine.search(ANN_DM, "kayak", 5))).toEqual(["Owns a kayak"]);
    await replica.memory.engine.forget(ANN_DM, memory.id);
    expect(await engine.search(ANN_DM, "kayak", 5)).toEqual([]);
  });

  it("keeps no index for people without memories, and their first memory is found all the same", async () => {
    world = await openMemoryWorld(backend);
    const { engine } = world.memory;
    // The indexes this process keeps (private: what the bound is about is not visible through the API).
    const cachedIndexes = () => (engine as unknown as { cache: { size: number } }).cache.size;
    const person = (i: number) => ({ ...ANN_DM, userId: `user${i}`, chatId: `user${i}` });
    for (let i = 0; i < 50; i++) expect(await engine.search(person(i), "kayak", 5)).toEqual([]);
    expect(cachedIndexes()).toBe(0);

    await engine.add(person(1), { content: "Owns a kayak", kind: "fact", scope: "user" });
    expect(contentsOf(await engine.search(person(1), "kayak", 5))).toEqual(["Owns a kayak"]);
    expect(cachedIndexes()).toBe(1);
    // The index the others share did not take person 1's memory.
    expect(await engine.search(person(2), "kayak", 5)).toEqual([]);
    await engine.add(person(2), { content: "Rents a kayak in summer", kind: "fact", scope: "user" });
    expect(contentsOf(await engine.search(person(2), "kayak", 5))).toEqual(["Rents a kayak in summer"]);
    expect(contentsOf(await engine.search(person(1), "kayak", 5))).toEqual(["Owns a kayak"]);
    expect(await engine.search(person(3), "kayak", 5)).toEqual([]);
  });

  it("/forget all (forgetPerson) leaves nothing of the person in the store, and keeps everyone else's", async () => {
    world = await openMemoryWorld(backend);
    const { engine, profiles } = world.memory;
    await engine.add(ANN_DM, { content: "Ann likes jazz", kind: "preference", scope: "user" });
    await engine.add(ANN_IN_GROUP, { content: "Ann brings the projector", kind: "note", scope: "chat" });
    await engine.add(BOB_IN_GROUP, { content: "Bob books the room", kind: "note", scope: "chat" });
    await engine.add(BOB_DM, { content: "Bob likes rock", kind: "preference", scope: "user" });
    await profiles.update(ANN_DM, "occupation", "Ann's job: pilot");
    await profiles.update(ANN_DM, "timezone", "Europe/Berlin");
    const annRows = async () => (await world!.rows()).filter((r) => /telegram:ann\b|Ann /.test(r.key + r.value));
    expect((await annRows()).length).toBeGreaterThan(0);

    expect(await world.memory.forgetPerson({ channel: "telegram", userId: "ann" })).toEqual({ memories: 2, profile: true });
    expect(await annRows()).toEqual([]);
    expect(contentsOf(await engine.search(BOB_IN_GROUP, "Bob room rock", 5)).sort()).toEqual(["Bob books the room", "Bob likes rock"]);
    expect(await world.zones.resolve({ channel: "telegram", chatId: "ann", userId: "ann" })).toEqual({ zone: "UTC", source: "default" });
  });

  it("reports a malformed stored document instead of using or overwriting it", async () => {
    world = await openMemoryWorld(backend);
    const ns = world.store.namespace<unknown>("memory");
    const broken = { items: [{ id: "x", kind: "gossip", content: "kept as it was" }] };
    await ns.set("doc:user:telegram:ann", broken);
    await ns.set("rev:user:telegram:ann", "r1");
    const { engine } = world.memory;
    await expect(engine.search(ANN_DM, "kept", 5)).rejects.toThrow(/stored memories of user:telegram:ann are malformed \(items\.0\.kind: /);
    await expect(engine.add(ANN_DM, { content: "New one", kind: "fact", scope: "user" })).rejects.toThrow(/malformed/);
    expect(await ns.get("doc:user:telegram:ann")).toEqual(broken);
    // Other people are unaffected.
    await engine.add(BOB_DM, { content: "Bob is fine", kind: "fact", scope: "user" });
    expect(contentsOf(await engine.search(BOB_DM, "fine", 5))).toEqual(["Bob is fine"]);
  });

  it("recalls the most relevant memories within the token budget", async () => {
    world = await openMemoryWorld(backend, { promptTokenBudget: 40, promptMaxItems: 3 });
    const { engine } = world.memory;
    await engine.add(ANN_DM, { content: "Allergic to shellfish", kind: "fact", scope: "user" });
    await engine.add(ANN_DM, { content: `Shellfish story: ${"long words ".repeat(30)}`, kind: "note", scope: "user" });
    await engine.add(ANN_DM, { content: "Lives in Lisbon", kind: "fact", scope: "user" });
    const recalled = await engine.recall(ANN_DM, "Can I order the shellfish paella?");
    expect(recalled.stored).toBe(3);
    // The long note is relevant too but does not fit the budget.
    expect(recalled.memories.map((m) => m.content)).toEqual(["Allergic to shellfish"]);
  });
});
