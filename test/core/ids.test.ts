import { describe, expect, it } from "vitest";
import { partKey, randomHex } from "../../src/core/ids.js";

describe("randomHex", () => {
  it("gives the asked number of hex characters, all of them varying (no fixed UUID version digit)", () => {
    const ids = Array.from({ length: 2_000 }, () => randomHex(12));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Each position takes many values over 2,000 draws; a fixed digit (the UUID's version "4") would take one.
    for (let position = 0; position < 12; position++) expect(new Set(ids.map((id) => id[position])).size).toBeGreaterThan(8);
    expect(randomHex(8)).toMatch(/^[0-9a-f]{8}$/);
  });

  it("refuses more characters than a UUID has random in a row", () => {
    expect(() => randomHex(13)).toThrow(/at most 12/);
  });
});

describe("partKey", () => {
  it("is the same for the same send and part, different for another part or send, and as long as asked", () => {
    expect(partKey("send-1", 0, 25)).toBe(partKey("send-1", 0, 25));
    expect(partKey("send-1", 0, 25)).toMatch(/^[0-9a-f]{25}$/);
    expect(new Set([partKey("send-1", 0, 25), partKey("send-1", 1, 25), partKey("send-1", "file", 25), partKey("send-2", 0, 25)]).size).toBe(4);
    expect(partKey("send-1", 0, 36)).toHaveLength(36);
  });
});
