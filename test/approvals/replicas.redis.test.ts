/** Approvals across two replicas on one Redis: the turn waits on one, the answer comes to the other, once. */
import { afterEach, describe, expect, it } from "vitest";
import { REDIS_URL, startReplicas, type Replicas } from "../replicas/harness.js";
import { toolResultsOf } from "../fakes/openai-server.js";
import { eventually } from "../helpers/wait.js";
import { WRITE_NOTE } from "./fixtures.js";

describe.skipIf(!REDIS_URL)("approvals on two replicas", () => {
  let running: Replicas | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it("a turn waiting on replica A runs once after /approve reaches replica B; a second answer at A changes nothing", async () => {
    running = await startReplicas(2, { approvals: { mode: "always", tools: ["write_file"] } });
    const [a, b] = running.replicas;
    running.fake.enqueue({ toolCalls: [WRITE_NOTE] }, { text: "Written." });
    const turn = a!.post({ chatId: "c1", userId: "alice", text: "write a note" });
    const pending = await eventually(async () => {
      const listed = (await (await fetch(`${b!.url}/api/v1/console/approvals`)).json()) as { pending: Array<{ id: string }> };
      return listed.pending[0];
    }, "the request in the shared store");

    const approved = await b!.post({ chatId: "c1", userId: "alice", text: `/approve ${pending.id}` });
    expect(approved.body.replies?.map((r) => r.text)).toEqual([`Approved: write_file (request ${pending.id}).`]);
    const again = await a!.post({ chatId: "c1", userId: "alice", text: `/approve ${pending.id}` });
    expect(again.body.replies?.[0]?.text).toMatch(/was already answered: approved by web:/);

    expect((await turn).body.replies?.map((r) => r.text)).toContain("Written.");
    const runs = running.fake.requests.flatMap((r) => toolResultsOf(r)).filter((r) => (r.content as { bytesWritten?: number }).bytesWritten === 5);
    expect(new Set(runs.map((r) => r.toolCallId)).size).toBe(1);
  });
});
