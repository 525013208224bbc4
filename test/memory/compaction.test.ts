/** Compaction proposes memories: kept as the sender's own, cut out of the summary, and only when enabled. */
import { afterEach, describe, expect, it } from "vitest";
import type { Harness } from "../agent/harness.js";
import { systemPromptOf, type FakeRequest } from "../fakes/openai-server.js";
import { startAgentWorld, type AgentWorld } from "./agent-world.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const isSummaryRequest = (request: FakeRequest): boolean => systemPromptOf(request).includes("You keep compact notes");

const SUMMARY_WITH_PROPOSALS = [
  "Ann talked about her diet and her move.",
  "MEMORIES:",
  "- preference: Is vegan",
  "- fact: Moved to Porto in 2025",
  "- secret: not a kind, dropped",
  "- event: Is vegan",
].join("\n");

async function overBudget(world: AgentWorld): Promise<void> {
  world.h.fake.respondWith((request) => (isSummaryRequest(request) ? { text: SUMMARY_WITH_PROPOSALS } : { text: "ok" }));
  await world.turnAs("ann", `I'm vegan, and here is my story: ${"lorem ipsum ".repeat(400)}`, "direct");
  await world.turnAs("ann", `I moved to Porto. ${"context ".repeat(500)}`, "direct");
}

describe("memories proposed by compaction", () => {
  it("keeps the proposals as the sender's memories and leaves them out of the summary", async () => {
    const world = await startAgentWorld({ llm: { historyTokenBudget: 1_000 } });
    h = world.h;
    await overBudget(world);
    const prompt = await world.turnAs("ann", "Where do I live now? Porto?", "direct");

    const summaryRequest = world.h.fake.requests.find(isSummaryRequest)!;
    expect(systemPromptOf(summaryRequest)).toContain('add a line "MEMORIES:"');
    const kept = await world.memory.engine.list({ kind: "user", channel: "telegram", userId: "ann" });
    expect(kept.map((m) => [m.kind, m.content, m.source]).sort()).toEqual([
      ["fact", "Moved to Porto in 2025", "compaction"],
      ["preference", "Is vegan", "compaction"],
    ]);
    expect(prompt).toContain("<untrusted_summary>\nAnn talked about her diet and her move.\n</untrusted_summary>");
    expect(prompt).not.toContain("MEMORIES:");
    expect(prompt).toContain("the sender's own: Moved to Porto in 2025");
  });

  it("does not ask for proposals when memory.fromCompaction is off", async () => {
    const world = await startAgentWorld({ llm: { historyTokenBudget: 1_000 }, fromCompaction: false });
    h = world.h;
    await overBudget(world);
    await world.turnAs("ann", "next", "direct");
    const summaryRequest = world.h.fake.requests.find(isSummaryRequest)!;
    expect(systemPromptOf(summaryRequest)).not.toContain("MEMORIES:");
    expect(await world.memory.engine.list({ kind: "user", channel: "telegram", userId: "ann" })).toEqual([]);
  });
});
