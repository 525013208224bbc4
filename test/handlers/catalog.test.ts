import { pino } from "pino";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolCatalog } from "../../src/handlers/catalog.js";
import { HandlerRegistry } from "../../src/handlers/registry.js";
import type { ToolDefinition } from "../../src/core/tools.js";
import { handlerSpec } from "../helpers/handler-spec.js";

function tool(name: string, category: string, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    name,
    category,
    shortDescription: `Short description of ${name} for the catalog`,
    description: `Full description of ${name}.`,
    input: z.object({ when: z.string().describe("When to run"), repeat: z.boolean().default(false) }),
    risk: "read",
    ...extra,
  };
}

let registry: HandlerRegistry;
let catalog: ToolCatalog;

beforeEach(() => {
  registry = new HandlerRegistry({ log: pino({ level: "silent" }), defaultTimeoutMs: 1000 });
  catalog = new ToolCatalog(registry);
  const noop = async (): Promise<null> => null;
  registry.register(handlerSpec("scheduled", noop, [tool("schedule_task", "Scheduler"), tool("cancel_task", "Scheduler")]));
  registry.register(handlerSpec("filesystem", noop, [tool("read_file", "File System", { risk: "read" })]));
  registry.register(handlerSpec("more", noop, [
    tool("write_file", "File System", { risk: "workspace" }),
    tool("list_tasks", "Scheduler"),
  ]));
});

describe("ToolCatalog.resolve", () => {
  it.each([
    ["schedule_task", "schedule_task"],
    ["schedule-task", "schedule_task"],
    ["Schedule_Task", "schedule_task"],
    [" schedule task ", "schedule_task"],
    ["READ-FILE", "read_file"],
  ])("resolves %j to %s", (asked, expected) => {
    expect(catalog.resolve(asked)?.name).toBe(expected);
  });

  // A near miss could be a different tool (run_shell is not run_skill): it is suggested, never resolved.
  it.each(["schedule_taks", "shedule_task", "read_fil", "send_email", "x", "", "task"])("resolves nothing for %j", (asked) => {
    expect(catalog.resolve(asked)).toBeUndefined();
  });

  it("suggests every equally close name", () => {
    // read_filx is one edit from read_file and one from read_fila.
    registry.register(handlerSpec("extra", async () => null, [tool("read_fila", "File System")]));
    expect(catalog.suggest("read_filx")).toEqual(["read_file", "read_fila"]);
  });

  it("suggests names containing what was asked", () => {
    expect(catalog.suggest("task")).toEqual(expect.arrayContaining(["schedule_task", "cancel_task", "list_tasks"]));
  });
});

describe("ToolCatalog.definition, family and jsonSchema", () => {
  it("shows a tool as its signature, its description and its described fields, then its family's signatures", () => {
    const tool = catalog.resolve("Schedule-Task")!;
    const family = catalog.family(tool, () => true);
    expect(family.map((other) => other.name)).toEqual(["cancel_task", "list_tasks"]);
    expect(catalog.definition(tool, family)).toBe(
      [
        "schedule_task(when: string, repeat?: boolean)",
        "Full description of schedule_task.",
        "Parameters:",
        "- when: When to run",
        "- repeat: default false",
        "Also in Scheduler: cancel_task(when: string, repeat?: boolean), list_tasks(when: string, repeat?: boolean)",
      ].join("\n"),
    );
    expect(catalog.family(tool, (other) => other.name !== "cancel_task").map((other) => other.name)).toEqual(["list_tasks"]);
    expect(catalog.definition(catalog.resolve("read_file")!)).not.toContain("Also in");
  });

  it("writes nested fields by their path, unions and enums as TypeScript types, and leaves the limits out", () => {
    registry.register(handlerSpec("nested", async () => null, [
      tool("send_things", "Other", {
        input: z.object({
          items: z
            .array(z.object({ kind: z.enum(["a", "b"]).describe("Which kind"), path: z.string().min(1).max(9) }))
            .min(1)
            .describe("What to send"),
          tags: z.array(z.enum(["x", "y"])).optional(),
          when: z.union([z.object({ in: z.string().describe("A duration") }), z.object({ at: z.string() })]),
        }),
      }),
    ]));
    expect(catalog.definition(catalog.resolve("send_things")!).split("\n")).toEqual([
      'send_things(items: {kind: "a" | "b", path: string}[], tags?: ("x" | "y")[], when: {in: string} | {at: string})',
      "Full description of send_things.",
      "Parameters:",
      "- items: What to send",
      "- items[].kind: Which kind",
      "- when.in: A duration",
    ]);
  });

  it("computes each schema once and refuses an unknown name", () => {
    expect(catalog.jsonSchema("read_file")).toBe(catalog.jsonSchema("read_file"));
    expect(catalog.jsonSchema("read_file")).not.toHaveProperty("$schema");
    expect(() => catalog.jsonSchema("read-file")).toThrow(/No tool named "read-file"/);
  });
});

describe("ToolCatalog.compactSchema", () => {
  it("keeps types, required fields and defaults, cuts descriptions to their first sentence", () => {
    registry.register(handlerSpec("long", async () => null, [
      tool("long_tool", "Other", {
        input: z.object({
          when: z.string().describe("When, as the user said it. Examples: in 10 minutes, tomorrow 9:00 and many more words"),
          note: z.string().describe("A very long description of a note field that goes on and on well beyond sixty chars"),
          kind: z.enum(["a", "b"]).default("a"),
          path: z.string().describe("File path, e.g. notes/todo.md. Relative to the workspace"),
          name: z.string().describe("E.g. Ann. Shown to others"),
        }),
      }),
    ]));
    expect(catalog.compactSchema("long_tool")).toEqual({
      type: "object",
      properties: {
        when: { type: "string", description: "When, as the user said it" },
        note: { type: "string", description: "A very long description of a note field that goes on and on..." },
        kind: { type: "string", enum: ["a", "b"], default: "a" },
        path: { type: "string", description: "File path, e.g. notes/todo.md" },
        name: { type: "string", description: "E.g. Ann" },
      },
      required: ["when", "note", "path", "name"],
    });
    expect(catalog.compactSchema("long_tool")).toBe(catalog.compactSchema("long_tool"));
    expect(catalog.jsonSchema("long_tool")).toMatchObject({ properties: { when: { description: expect.stringContaining("Examples") } } });
  });
});
