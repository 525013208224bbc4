/** /memory and /forget in a group: the answer goes to everyone, so the sender's own memories stay out of it. */
import { afterEach, describe, expect, it } from "vitest";
import type { CommandContext } from "../../src/core/commands.js";
import { memoryCommands } from "../../src/memory/commands.js";
import { inboundMessage } from "../agent/harness.js";
import { ANN_IN_GROUP, BACKENDS, BOB_IN_GROUP, openMemoryWorld, type MemoryWorld } from "./helpers.js";
import { ENGLISH } from "../../src/infra/i18n/index.js";

let world: MemoryWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function groupContext(w: MemoryWorld, userId: string): CommandContext {
  const message = inboundMessage("/memory", { channel: "telegram", chat: { id: "-100team", type: "group" }, sender: { id: userId } });
  return { message, sessionKey: "telegram:-100team", log: w.log, traceId: "t", speech: ENGLISH };
}

describe.each(BACKENDS)("memory commands in a group on %s", (backend) => {
  it("/memory lists the group's memories and only counts the sender's own; /forget respects authorship", async () => {
    world = await openMemoryWorld(backend);
    const { engine, profiles } = world.memory;
    await engine.add(ANN_IN_GROUP, { content: "Ann's private diary note", kind: "note", scope: "user" });
    await profiles.update(ANN_IN_GROUP, "location", "Ann's home town");
    const { memory: shared } = await engine.add(BOB_IN_GROUP, { content: "Retro every other Friday", kind: "event", scope: "chat" });
    const commands = new Map(memoryCommands(world.memory, { isOwner: (ctx) => ctx.message.sender.id === "owner" }).map((c) => [c.name, c]));

    const listing = await commands.get("memory")!.run("", groupContext(world, "ann"));
    expect(listing).toMatch(/^Shared in this group \(1\):\n[a-z2-9]{8} · event · \d{4}-\d\d-\d\d · Retro every other Friday\n/);
    expect(listing).toContain("I also keep 1 memory about you personally");
    expect(listing).not.toContain("diary");
    expect(listing).not.toContain("home town");

    expect(await commands.get("forget")!.run(shared.id, groupContext(world, "ann"))).toMatch(/added by someone else/);
    expect(await commands.get("forget")!.run("", groupContext(world, "ann"))).toMatch(/^Usage: \/forget/);
    expect(await commands.get("forget")!.run(shared.id, groupContext(world, "owner"))).toBe(`Forgot ${shared.id}: Retro every other Friday`);
  });
});
