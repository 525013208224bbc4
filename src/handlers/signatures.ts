/**
 * A tool's JSON Schema as the model reads it in get_tool_info's answer: a signature in TypeScript's notation
 * (`read_file(path: string, offset?: number)`) and one line per described field: what the schema says, in far
 * fewer tokens than its JSON inside a JSON tool result (every quote escaped twice).
 */

export type SchemaNode = {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  items?: SchemaNode;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  description?: string;
  default?: unknown;
};

/**
 * A JSON Schema as the types of a TypeScript signature: `url: string, wait?: boolean`, `{type: "file" | "image"}[]`.
 * `bare` leaves out the braces of the outermost object (a parameter list).
 */
export function signature(schema: SchemaNode, bare = false): string {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return alternatives.map((s) => signature(s)).join(" | ");
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.type === "array") return `${schema.items ? itemType(schema.items) : "unknown"}[]`;
  if (schema.type === "integer") return "number";
  if (schema.type !== "object" || !schema.properties) return schema.type ?? "unknown";
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties).map(([key, value]) => `${key}${required.has(key) ? "" : "?"}: ${signature(value)}`);
  return bare ? fields.join(", ") : `{${fields.join(", ")}}`;
}

/** An array's item type, in parentheses when it is a union (`("a" | "b")[]`). */
function itemType(items: SchemaNode): string {
  const union = (items.anyOf ?? items.oneOf ?? items.enum ?? []).length > 1;
  return union ? `(${signature(items)})` : signature(items);
}

/**
 * `- path: description` for every field with a description or a default, nested fields by their path
 * (`artifacts[].type`, `when.in`); the types are the signature's. Limits (lengths, ranges) are left to the
 * registry's check, whose error names them.
 */
export function fieldLines(schema: SchemaNode, prefix = ""): string[] {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return alternatives.flatMap((s) => fieldLines(s, prefix));
  if (schema.type === "array" && schema.items) return fieldLines(schema.items, `${prefix}[]`);
  if (!schema.properties) return [];
  return Object.entries(schema.properties).flatMap(([key, field]) => {
    const path = prefix === "" ? key : `${prefix}.${key}`;
    const notes = [field.description?.replace(/\s+/g, " ").trim(), field.default !== undefined ? `default ${JSON.stringify(field.default)}` : undefined];
    const said = notes.filter((note) => note !== undefined && note !== "").join("; ");
    return [...(said === "" ? [] : [`- ${path}: ${said}`]), ...fieldLines(field, path)];
  });
}
