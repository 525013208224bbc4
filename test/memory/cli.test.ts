/** `switchboard memory list|forget --user channel:id` on a real store. */
import { Command } from "commander";
import { afterEach, describe, expect, it } from "vitest";
import { registerMemoryCommands } from "../../src/memory/cli.js";
import { ANN_DM, BACKENDS, BOB_DM, openMemoryWorld, type MemoryWorld } from "./helpers.js";
import { CHANNEL_NAMES } from "../helpers/channel-names.js";

let world: MemoryWorld | undefined;
afterEach(async () => {
  process.exitCode = undefined;
  await world?.close();
  world = undefined;
});

/** Runs `switchboard memory ...args` as a separate process would: its own store connection, closed after. */
async function cli(w: MemoryWorld, args: string[]): Promise<{ output: string; exitCode: number | string | undefined }> {
  const lines: string[] = [];
  const program = new Command().exitOverride().configureOutput({ writeErr: (text) => lines.push(text.trim()) });
  registerMemoryCommands(program, { setup: () => w.openReplica(), channels: CHANNEL_NAMES, out: (line) => lines.push(line) });
  try {
    await program.parseAsync(["memory", ...args], { from: "user" });
  } catch {
    // exitOverride: commander's own usage errors are reported through writeErr
  }
  const exitCode = process.exitCode;
  process.exitCode = undefined;
  return { output: lines.join("\n"), exitCode };
}

describe.each(BACKENDS)("switchboard memory on %s", (backend) => {
  it("lists a person's memories and profile, forgets one, then everything", async () => {
    world = await openMemoryWorld(backend);
    const { engine, profiles } = world.memory;
    const { memory: tea } = await engine.add(ANN_DM, { content: "Drinks green tea", kind: "preference", scope: "user" });
    await engine.add(ANN_DM, { content: "Has two kids", kind: "fact", scope: "user" });
    await engine.add(BOB_DM, { content: "Bob's own memory", kind: "fact", scope: "user" });
    await profiles.update(ANN_DM, "name", "Annie");

    const listed = await cli(world, ["list", "--user", "telegram:ann"]);
    expect(listed.output).toMatch(/^[a-z2-9]{8} {2}fact {7}\d{4}-\d\d-\d\d {2}Has two kids$/m);
    expect(listed.output).toContain("Drinks green tea");
    expect(listed.output).toContain("2 memories of telegram:ann.");
    expect(listed.output).toContain("profile name: Annie");
    expect(listed.output).not.toContain("Bob");

    expect((await cli(world, ["forget", tea.id, "--user", "telegram:ann"])).output).toBe(`Forgot ${tea.id}: Drinks green tea`);
    // The running gateway's engine sees the change.
    expect(await engine.search(ANN_DM, "tea", 5)).toEqual([]);
    expect(await cli(world, ["forget", tea.id, "--user", "telegram:ann"])).toMatchObject({ exitCode: 1, output: expect.stringMatching(/no memory/) });

    expect((await cli(world, ["forget", "all", "--user", "telegram:ann"])).output).toBe("Forgot 1 memory and the profile of telegram:ann.");
    expect((await cli(world, ["list", "--user", "telegram:ann"])).output).toBe("0 memories of telegram:ann.");
    expect(await engine.list({ kind: "user", channel: "telegram", userId: "bob" })).toHaveLength(1);
  });

  it("refuses a user that is not channel:id", async () => {
    world = await openMemoryWorld(backend);
    for (const user of ["ann", "irc:ann", "telegram:"]) {
      const { output } = await cli(world, ["list", "--user", user]);
      expect(output).toContain("expected channel:id");
    }
  });
});
