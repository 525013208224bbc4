import { pino } from "pino";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolCatalog } from "../../src/handlers/catalog.js";
import { HandlerRegistry } from "../../src/handlers/registry.js";
import type { ToolDefinition } from "../../src/core/tools.js";

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
  registry.register("scheduled", noop, [tool("schedule_task", "Scheduler"), tool("cancel_task", "Scheduler")]);
  registry.register("filesystem", noop, [tool("read_file", "File System", { risk: "read" })]);
  registry.register("more", noop, [
    tool("write_file", "File System", { risk: "workspace" }),
    tool("list_tasks", "Scheduler"),
  ]);
});

describe("ToolCatalog.render", () => {
  it("groups tools under their category in registration order", () => {
    expect(catalog.render()).toBe(
      [
        "### Scheduler",
        "- schedule_task: Short description of schedule_task for the catalog",
        "- cancel_task: Short description of cancel_task for the catalog",
        "- list_tasks: Short description of list_tasks for the catalog",
        "",
        "### File System",
        "- read_file: Short description of read_file for the catalog",
        "- write_file: Short description of write_file for the catalog",
      ].join("\n"),
    );
  });

  it("shows only the tools the filter keeps, and drops categories left empty", () => {
    const rendered = catalog.render((t) => t.risk === "workspace");
    expect(rendered).toBe("### File System\n- write_file: Short description of write_file for the catalog");
    expect(catalog.render(() => false)).toBe("");
  });
});

describe("ToolCatalog.resolve", () => {
  it.each([
    ["schedule_task", "schedule_task"],
    ["schedule-task", "schedule_task"],
    ["Schedule_Task", "schedule_task"],
    [" schedule task ", "schedule_task"],
    ["schedule_taks", "schedule_task"],
    ["shedule_task", "schedule_task"],
    ["read_fil", "read_file"],
    ["READ-FILE", "read_file"],
  ])("resolves %j to %s", (asked, expected) => {
    expect(catalog.resolve(asked)?.name).toBe(expected);
  });

  it.each(["send_email", "x", "", "task"])("finds nothing close to %j", (asked) => {
    expect(catalog.resolve(asked)).toBeUndefined();
  });

  it("does not guess between two equally close names", () => {
    // read_filx is one edit from read_file and one from read_fila.
    registry.register("extra", async () => null, [tool("read_fila", "File System")]);
    expect(catalog.resolve("read_filx")).toBeUndefined();
    expect(catalog.suggest("read_filx")).toEqual(["read_file", "read_fila"]);
  });

  it("suggests names containing what was asked", () => {
    expect(catalog.suggest("task")).toEqual(expect.arrayContaining(["schedule_task", "cancel_task", "list_tasks"]));
  });
});

describe("ToolCatalog.info and jsonSchema", () => {
  it("returns the full definition with the input schema as the caller sees it", () => {
    const info = catalog.info("Schedule-Task");
    expect(info).toEqual({
      name: "schedule_task",
      category: "Scheduler",
      description: "Full description of schedule_task.",
      risk: "read",
      inputSchema: {
        type: "object",
        properties: {
          when: { type: "string", description: "When to run" },
          repeat: { type: "boolean", default: false },
        },
        required: ["when"],
      },
    });
    expect(catalog.info("nothing_like_it")).toBeUndefined();
  });

  it("computes each schema once and refuses an unknown name", () => {
    expect(catalog.jsonSchema("read_file")).toBe(catalog.jsonSchema("read_file"));
    expect(catalog.jsonSchema("read_file")).not.toHaveProperty("$schema");
    expect(() => catalog.jsonSchema("read-file")).toThrow(/No tool named "read-file"/);
  });
});
