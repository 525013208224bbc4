import { afterEach, describe, expect, it } from "vitest";
import { MessageLimits } from "../../src/access/limits.js";
import { MAX_CONTEXT_TEXT, RecentMessages } from "../../src/access/recent-messages.js";
import { TurnSlots } from "../../src/access/turn-slots.js";
import { LocalWindowCounter } from "../../src/access/local-window-counter.js";
import { WindowCounter } from "../../src/access/window-counter.js";
import { accessConfig, message, openTestStore, type TestStore } from "./helpers.js";

let t: TestStore | undefined;
let clock = 1_000_000;
const now = () => clock;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("WindowCounter", () => {
  it("opens a window at the first event and counts concurrent hits exactly", async () => {
    t = await openTestStore();
    const counter = new WindowCounter(t.store, "test", 60_000, now);
    const counts = await Promise.all(Array.from({ length: 25 }, () => counter.hit("alice")));
    expect(counts.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(await counter.count("bob")).toBe(0);
    clock += 59_999;
    expect(await counter.hit("alice")).toBe(26);
    clock += 1;
    expect(await counter.count("alice")).toBe(0);
    expect(await counter.hit("alice")).toBe(1);
  });

  it("treats an unreadable record as no window", async () => {
    t = await openTestStore();
    await t.store.namespace<unknown>("access").set("test:alice", "garbage");
    expect(await new WindowCounter(t.store, "test", 60_000, now).hit("alice")).toBe(1);
  });
});

describe("LocalWindowCounter", () => {
  it("counts as WindowCounter does, drops expired windows as events come, and keeps at most `max`", async () => {
    const counter = new LocalWindowCounter(60_000, now, 3);
    expect(await Promise.all([counter.hit("alice"), counter.hit("alice"), counter.hit("bob")])).toEqual([1, 2, 1]);
    clock += 59_999;
    expect(await counter.hit("alice")).toBe(3);
    expect(await counter.count("carol")).toBe(0);
    clock += 1;
    expect(await counter.count("alice")).toBe(0);
    // Both windows expired: the next event drops them and opens its own.
    expect(await counter.hit("dave")).toBe(1);
    expect(counter.size).toBe(1);
    for (const subject of ["e", "f", "g"]) await counter.hit(subject);
    expect(counter.size).toBe(3);
    // The oldest open window ("dave") went to make room: its subject starts afresh.
    expect(await counter.count("dave")).toBe(0);
    expect(await counter.hit("g")).toBe(2);
  });
});

describe("MessageLimits", () => {
  const limitsConfig = accessConfig({ limits: { perUser: { messages: 3, windowSeconds: 10 }, perChat: { messages: 5, windowSeconds: 10 } } }).limits;

  it("lets the limit through, answers the next with one notice, and drops the rest with a count", async () => {
    t = await openTestStore();
    const limits = new MessageLimits(limitsConfig, t.store, now);
    const verdicts = [];
    for (let i = 0; i < 7; i += 1) verdicts.push(await limits.check(message()));
    expect(verdicts.map((v) => v.kind)).toEqual(["within", "within", "within", "notice", "drop", "drop", "drop"]);
    expect(verdicts[3]).toMatchObject({ scope: "user", rate: { messages: 3, windowSeconds: 10 } });
    expect(verdicts[6]).toMatchObject({ dropped: 4 });
    clock += 10_000;
    expect((await limits.check(message())).kind).toBe("within");
  });

  it("limits a group chat as a whole, and one user's flood does not use up the others' allowance", async () => {
    t = await openTestStore();
    const limits = new MessageLimits(limitsConfig, t.store, now);
    const inGroup = (userId: string) => message({ chat: { id: "-1", type: "group" }, sender: { id: userId } });
    const kinds = [];
    for (const userId of ["a", "b", "c", "d", "e", "f", "g"]) kinds.push((await limits.check(inGroup(userId))).kind);
    expect(kinds).toEqual(["within", "within", "within", "within", "within", "notice", "drop"]);
    // A flooding user is stopped by the user limit, before counting against the chat.
    const other = new MessageLimits(limitsConfig, t.store, now);
    for (let i = 0; i < 5; i += 1) await other.check(message({ chat: { id: "-2", type: "group" }, sender: { id: "flood" } }));
    expect((await other.check(message({ chat: { id: "-2", type: "group" }, sender: { id: "calm" } }))).kind).toBe("within");
  });
});

describe("TurnSlots", () => {
  it("caps the conversations a user has turns in, not the turns of one conversation", async () => {
    t = await openTestStore();
    const slots = new TurnSlots(2, t.store);
    const a1 = await slots.claim("u", "a");
    const a2 = await slots.claim("u", "a");
    const b = await slots.claim("u", "b");
    expect([a1, a2, b].every((r) => r !== null)).toBe(true);
    expect(await slots.claim("u", "c")).toBeNull();
    expect(await slots.claim("someone else", "c")).not.toBeNull();
    a1!();
    a1!(); // releasing twice frees one slot, not two
    expect(await slots.claim("u", "c")).toBeNull();
    a2!();
    expect(await slots.claim("u", "c")).not.toBeNull();
  });
});

describe("RecentMessages", () => {
  const groupMessage = (text: string, sender = "b") =>
    message({ text, chat: { id: "-9", type: "group" }, sender: { id: sender, name: `User ${sender}` }, receivedAt: new Date(clock) });

  it("keeps the last few unaddressed messages of a chat, cut short, and hands them out once", async () => {
    t = await openTestStore();
    const recent = new RecentMessages(accessConfig({ groupContext: { messages: 3 } }).groupContext, t.store, now);
    for (const text of ["one", "two", "three", "x".repeat(MAX_CONTEXT_TEXT + 50)]) await recent.remember(groupMessage(text));
    const kept = await recent.take(groupMessage("@bot what do you think?"));
    expect(kept.map((m) => m.text.length)).toEqual([3, 5, MAX_CONTEXT_TEXT + 1]);
    expect(kept[0]).toMatchObject({ senderId: "b", senderName: "User b", text: "two" });
    expect(await recent.take(groupMessage("again"))).toEqual([]);
    // Another chat keeps its own.
    await recent.remember(message({ text: "elsewhere", chat: { id: "-8", type: "group" } }));
    expect(await recent.take(groupMessage("here"))).toEqual([]);
  });

  it("forgets messages older than maxAgeMinutes, and keeps nothing when messages is 0", async () => {
    t = await openTestStore();
    const config = accessConfig({ groupContext: { maxAgeMinutes: 5 } }).groupContext;
    const recent = new RecentMessages(config, t.store, now);
    await recent.remember(groupMessage("old"));
    clock += 5 * 60_000 + 1;
    await recent.remember(groupMessage("new"));
    expect((await recent.take(groupMessage("?"))).map((m) => m.text)).toEqual(["new"]);
    const off = new RecentMessages(accessConfig({ groupContext: { messages: 0 } }).groupContext, t.store, now);
    await off.remember(groupMessage("ignored"));
    expect(await off.take(groupMessage("?"))).toEqual([]);
  });
});
