/** Memory through the whole gateway: the WebChat API, the fake LLM calling the tools, /new, restarts, commands. */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { systemPromptOf, turnNotesOf } from "../fakes/openai-server.js";
import { eventually } from "../helpers/wait.js";
import { startTestGateway, userTextsOf, type TestGateway } from "../e2e/harness.js";
import { queryFile } from "../helpers/sqlite-file.js";
import { memoryFeature } from "../../src/features/memory.js";

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const replyOf = (reply: { body: { replies?: Array<{ text: string }> } }) => reply.body.replies?.map((r) => r.text).join("\n") ?? "";

/** Every row of the gateway's SQLite store whose key is in the memory namespace or names the user. */
async function rowsAbout(gw: TestGateway, needle: RegExp): Promise<string[]> {
  const rows = queryFile(join(gw.config.dataDir, "switchboard.sqlite"), "SELECT key, value FROM keyv");
  return rows.map((r) => `${String(r.key)} ${String(r.value)}`).filter((row) => needle.test(row));
}

describe("memory through the gateway", () => {
  it("remembers in one session, and recalls after /new and a restart, in the prompt and through search_memory", async () => {
    t = await startTestGateway();
    t.fake.enqueue(
      { toolCalls: [{ name: "add_memory", arguments: { content: "Is vegetarian, eats no meat or fish", kind: "preference" } }] },
      { text: "Noted: you are vegetarian." },
    );
    const first = await t.post({ chatId: "c1", userId: "alice", text: "Please remember that I'm vegetarian" });
    expect(replyOf(first)).toBe("Noted: you are vegetarian.");
    expect(t.fake.lastToolResults()[0]?.content).toMatchObject({ status: "remembered", kind: "preference", scope: "yours" });

    expect(replyOf(await t.post({ chatId: "c1", userId: "alice", text: "/new" }))).toMatch(/new conversation/i);
    await t.restart();

    t.fake.enqueue({ toolCalls: [{ name: "search_memory", arguments: { query: "diet vegetarian" } }] }, { text: "You are vegetarian." });
    const before = t.fake.requests.length;
    const second = await t.post({ chatId: "c1", userId: "alice", text: "Which vegetarian dish should I cook tonight?" });
    expect(replyOf(second)).toBe("You are vegetarian.");
    const request = t.fake.requests[before]!;
    // A new session: the old conversation is gone from the history...
    expect(userTextsOf(request).join("\n")).not.toContain("Please remember");
    // ...but the memory is in the notes after the message, framed as data, and search_memory finds it.
    const prompt = turnNotesOf(request);
    expect(prompt).toMatch(/<untrusted_memory>\n- \[[a-z2-9]{8}\] preference, \d{4}-\d\d-\d\d, the sender's own: Is vegetarian, eats no meat or fish\n<\/untrusted_memory>/);
    expect(prompt).toContain("not instructions");
    const found = t.fake.lastToolResults().at(-1)?.content as { count: number; memories: Array<{ content: string }> };
    expect(found.memories.map((m) => m.content)).toEqual(["Is vegetarian, eats no meat or fish"]);
  });

  it("keeps one person's memories out of another's prompt and tool results", async () => {
    // Distinct web users need the token: without it every WebChat user is the one local user.
    t = await startTestGateway({ http: { token: "memory-test-token" } });
    t.fake.enqueue({ toolCalls: [{ name: "add_memory", arguments: { content: "Allergic to penicillin" } }] }, { text: "Noted." });
    await t.post({ chatId: "c-alice", userId: "alice", text: "Remember: I'm allergic to penicillin" });

    t.fake.enqueue({ toolCalls: [{ name: "search_memory", arguments: { query: "penicillin allergy" } }] }, { text: "Nothing known." });
    const before = t.fake.requests.length;
    await t.post({ chatId: "c-bob", userId: "bob", text: "Am I allergic to penicillin?" });
    expect(systemPromptOf(t.fake.requests[before]!)).not.toContain("penicillin");
    expect(turnNotesOf(t.fake.requests[before]!)).not.toContain("penicillin");
    expect(t.fake.lastToolResults().at(-1)?.content).toEqual({ count: 0, memories: [] });
    // Bob typing Alice's memory id cannot delete it either.
    const [aliceMemory] = (await t.gateway.feature(memoryFeature)!.memory!.engine.list({ kind: "user", channel: "web", userId: "alice" }));
    expect(replyOf(await t.post({ chatId: "c-bob", userId: "bob", text: `/forget ${aliceMemory!.id}` }))).toMatch(/no memory/i);
    expect(await t.gateway.feature(memoryFeature)!.memory!.engine.list({ kind: "user", channel: "web", userId: "alice" })).toHaveLength(1);
  });

  it("/memory lists, /forget all deletes everything kept about the sender, profile and time zone included", async () => {
    const gateway = await startTestGateway();
    t = gateway;
    t.fake.enqueue(
      { toolCalls: [{ name: "add_memory", arguments: { content: "Collects vinyl records", kind: "fact" } }] },
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "update_user_profile" } }] },
      { toolCalls: [{ name: "update_user_profile", arguments: { field: "occupation", value: "Sound engineer" } }] },
      { text: "Got it." },
    );
    await t.post({ chatId: "c1", userId: "alice", text: "I collect vinyl and I'm a sound engineer" });
    expect(replyOf(await t.post({ chatId: "c1", userId: "alice", text: "/timezone Europe/Lisbon" }))).toContain("Europe/Lisbon");

    const listing = replyOf(await t.post({ chatId: "c1", userId: "alice", text: "/memory" }));
    expect(listing).toMatch(/What I remember about you \(1\):\n[a-z2-9]{8} · fact · \d{4}-\d\d-\d\d · Collects vinyl records/);
    expect(listing).toContain("Your profile: time zone: Europe/Lisbon; occupation: Sound engineer");
    expect(await rowsAbout(t, /vinyl|Sound engineer|user:web:alice|web:alice/)).not.toEqual([]);

    expect(replyOf(await t.post({ chatId: "c1", userId: "alice", text: "/forget all" }))).toBe(
      "Done: I forgot 1 memory and your profile (time zone included). This conversation's history stays until /new.",
    );
    // Nothing in memory, profile or time zone records; what remains is the conversation itself (the session
    // history until /new, kept as its own list of messages, the WebChat page's transcript, and the console's list
    // of sessions, which names who wrote last and is written within seconds), which /forget all leaves to /new.
    const left = await eventually(async () => {
      const rows = await rowsAbout(gateway, /vinyl|Sound engineer|alice/);
      return rows.length === 2 && rows;
    }, "the session directory written");
    expect(left.map((row) => row.split(" ")[0]).sort()).toEqual(["switchboard:sessions:#directory", "switchboard:web:c1"]);
    expect(await rowsAbout(t, /^switchboard:memory:/)).toEqual([]);
    expect(replyOf(await t.post({ chatId: "c1", userId: "alice", text: "/memory" }))).toContain("What I remember about you (0):\n(nothing)");
  });

  it("the profile's time zone and /timezone are one setting", async () => {
    t = await startTestGateway();
    await t.post({ chatId: "c1", userId: "alice", text: "/timezone Asia/Shanghai" });
    t.fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "get_user_profile" } }] },
      { toolCalls: [{ name: "get_user_profile", arguments: {} }] },
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "update_user_profile" } }] },
      { toolCalls: [{ name: "update_user_profile", arguments: { field: "timezone", value: "america/new_york" } }] },
      { text: "Updated." },
    );
    const before = t.fake.requests.length;
    await t.post({ chatId: "c1", userId: "alice", text: "I moved to New York" });
    const results = t.fake.lastToolResults();
    expect(results.find((r) => (r.content as { timezone?: string }).timezone)?.content).toMatchObject({ timezone: "Asia/Shanghai" });
    expect(results.at(-1)?.content).toEqual({ field: "timezone", value: "America/New_York", status: "saved" });
    expect(turnNotesOf(t.fake.requests[before]!)).toContain('time zone "Asia/Shanghai"');
    expect(replyOf(await t.post({ chatId: "c1", userId: "alice", text: "/timezone" }))).toMatch(/^Your time zone is America\/New_York \(yours\)/);

    t.fake.enqueue({ toolCalls: [{ name: "update_user_profile", arguments: { field: "timezone", value: "Mars/Olympus" } }] }, { text: "Hm." });
    await t.post({ chatId: "c1", userId: "alice", text: "Actually I live on Mars" });
    expect(t.fake.lastToolResults().at(-1)?.content).toMatchObject({ code: "invalid_input", error: expect.stringMatching(/not a time zone/) });
    expect(replyOf(await t.post({ chatId: "c1", userId: "alice", text: "/timezone" }))).toMatch(/^Your time zone is America\/New_York/);
  });
});
