/**
 * The rules every tool definition must follow, shared by the tests of all handlers:
 * `assertToolDefinitionsValid(myTools)` in each handler's test file.
 */
import { expect } from "vitest";
import { z } from "zod";
import { RISK_CLASSES, type ToolDefinition } from "../../src/core/tools.js";

const MIN_DESCRIPTION_CHARS = 150;

export function assertToolDefinitionsValid(tools: readonly ToolDefinition[]): void {
  expect(tools.length).toBeGreaterThan(0);
  const names = tools.map((tool) => tool.name);
  expect(new Set(names).size, `duplicate tool names in ${names.join(", ")}`).toBe(names.length);
  for (const tool of tools) {
    const where = `tool ${tool.name}`;
    expect(tool.name, where).toMatch(/^[a-z][a-z0-9_]*$/);
    expect(tool.category.trim(), `${where}: category`).not.toBe("");
    expect(RISK_CLASSES, `${where}: risk`).toContain(tool.risk);
    expect(tool.shortDescription.length, `${where}: shortDescription length`).toBeGreaterThanOrEqual(30);
    expect(tool.shortDescription.length, `${where}: shortDescription length`).toBeLessThanOrEqual(80);
    expect(tool.shortDescription, `${where}: shortDescription is one line`).not.toMatch(/\n/);
    expect(tool.description.length, `${where}: description length`).toBeGreaterThanOrEqual(MIN_DESCRIPTION_CHARS);
    expect(tool.description, `${where}: description needs an example call`).toContain(`${tool.name}(`);
    expect(tool.description, `${where}: description says when to use it`).toMatch(/when to use/i);
    const schema = z.toJSONSchema(tool.input, { io: "input" });
    expect(schema.type, `${where}: input must be an object schema`).toBe("object");
  }
}
