/** Hybrid ranking with a real HTTP embeddings endpoint (the fake), through the AI SDK's OpenAI-compatible client. */
import { afterEach, describe, expect, it } from "vitest";
import { createEmbedder } from "../../src/memory/embeddings.js";
import { embeddingsConfigSchema } from "../../src/memory/config.js";
import { startFakeEmbeddings, type FakeEmbeddings } from "../fakes/embeddings-server.js";
import { ANN_DM, BACKENDS, BOB_DM, openMemoryWorld, type MemoryWorld } from "./helpers.js";
import { closeInOrder } from "../helpers/close.js";

let world: MemoryWorld | undefined;
let fake: FakeEmbeddings | undefined;
afterEach(() => closeInOrder([world, fake]).then(() => (world = fake = undefined)));

const CONCEPTS = [
  ["vegetarian", "meat", "fish", "vegan", "素食"],
  ["tennis", "sport", "football"],
];

async function hybridWorld(backend: (typeof BACKENDS)[number]): Promise<MemoryWorld> {
  fake = await startFakeEmbeddings(CONCEPTS);
  const embeddings = embeddingsConfigSchema.parse({ baseUrl: fake.url, apiKey: "sk-embed-secret", model: "fake-embed", minSimilarity: 0.5 });
  return openMemoryWorld(backend, { embeddings }, createEmbedder(embeddings));
}

const contentsOf = (hits: Array<{ memory: { content: string } }>) => hits.map((hit) => hit.memory.content);

describe.each(BACKENDS)("hybrid memory search on %s", (backend) => {
  it("finds a memory by meaning when no word matches, and ranks word and meaning matches together", async () => {
    world = await hybridWorld(backend);
    const { engine } = world.memory;
    await engine.add(ANN_DM, { content: "Does not eat meat or fish", kind: "preference", scope: "user" });
    await engine.add(ANN_DM, { content: "Plays tennis on Sundays", kind: "fact", scope: "user" });
    await engine.add(ANN_DM, { content: "Sunday lunch with parents", kind: "event", scope: "user" });
    expect(fake!.inputs.slice(0, 3)).toEqual([["Does not eat meat or fish"], ["Plays tennis on Sundays"], ["Sunday lunch with parents"]]);
    expect(fake!.inputs[0]).toHaveLength(1);

    expect(contentsOf(await engine.search(ANN_DM, "vegetarian recipes", 5))).toEqual(["Does not eat meat or fish"]);
    // "sport" matches tennis by meaning, "sunday" the other two by words: the memory matching both ranks first.
    expect(contentsOf(await engine.search(ANN_DM, "sport on sunday", 5))[0]).toBe("Plays tennis on Sundays");
    expect(await engine.search(BOB_DM, "vegetarian", 5)).toEqual([]);
    expect((await engine.stats(ANN_DM)).search).toBe("hybrid");
  });

  it("keeps working by words when the embeddings endpoint fails, and fills in the missing vectors later", async () => {
    world = await hybridWorld(backend);
    const { engine } = world.memory;
    fake!.failWith(500);
    const { memory } = await engine.add(ANN_DM, { content: "Does not eat meat", kind: "preference", scope: "user" });
    expect(memory.vector).toBeUndefined();
    expect(contentsOf(await engine.search(ANN_DM, "meat", 5))).toEqual(["Does not eat meat"]);
    expect(await engine.search(ANN_DM, "vegetarian", 5)).toEqual([]);
    await engine.settled();
    const warnings = world.logs.filter((r) => r.level === 40).map((r) => r.msg);
    expect(warnings).toContain("embeddings endpoint failed; memory search uses words only this time");
    expect(warnings).toContain("filling in missing embeddings failed; trying again on a later search");
    expect(JSON.stringify(world.logs)).not.toContain("sk-embed-secret");

    fake!.failWith(null);
    await engine.add(ANN_DM, { content: "Vegan since 2019", kind: "fact", scope: "user" });
    // A search starts the catch-up of "Does not eat meat"; once it is stored, search finds it by meaning.
    expect(contentsOf(await engine.search(ANN_DM, "vegetarian", 5))).toContain("Vegan since 2019");
    await engine.settled();
    expect(contentsOf(await engine.search(ANN_DM, "vegetarian", 5)).sort()).toEqual(["Does not eat meat", "Vegan since 2019"]);
    // Stored, so another process finds it too.
    const replica = await world.openReplica();
    expect((await replica.memory.engine.list({ kind: "user", channel: "telegram", userId: "ann" })).every((m) => m.vector)).toBe(true);
  });
});
