import { describe, expect, it } from "vitest";
import { z } from "zod";
import { filesystemTools } from "../../src/handlers/filesystem.js";
import { systemTools } from "../../src/handlers/system.js";
import type { ToolDefinition } from "../../src/core/tools.js";
import { assertToolDefinitionsValid } from "./tool-rules.js";

describe("tool definitions", () => {
  it("system and filesystem tools follow the shared rules", () => {
    assertToolDefinitionsValid([...systemTools, ...filesystemTools]);
  });

  it("the rules reject a bad definition", () => {
    const bad: ToolDefinition = {
      name: "bad_tool",
      category: "Test",
      shortDescription: "Too short",
      description: "Does things.",
      input: z.object({}),
      risk: "read",
    };
    expect(() => assertToolDefinitionsValid([bad])).toThrow(/shortDescription length/);
    const noExample = {
      ...bad,
      shortDescription: "A long enough short description for a tool",
      description: "When to use: ".padEnd(200, "x"),
    };
    expect(() => assertToolDefinitionsValid([noExample])).toThrow(/example call/);
    expect(() => assertToolDefinitionsValid([...systemTools, ...systemTools])).toThrow(/duplicate tool names/);
  });
});
