/** copyWith: the copy a spread makes, `{ ...base, ...changes }`, without the spread's hidden class per copy. */
import { setFlagsFromString } from "node:v8";
import { describe, expect, it } from "vitest";
import { copyWith } from "../../src/core/objects.js";

describe("copyWith", () => {
  it("copies base with the changes on top, as a spread does, leaving both untouched", () => {
    const base = { a: 1, b: { deep: true }, c: "kept" };
    const changes = { a: 2, d: undefined };
    const copy = copyWith(base, changes);
    expect(copy).toEqual({ ...base, ...changes });
    expect(Object.keys(copy)).toEqual(["a", "b", "c", "d"]);
    expect(copy.b).toBe(base.b);
    expect(base).toEqual({ a: 1, b: { deep: true }, c: "kept" });
    expect(changes).toEqual({ a: 2, d: undefined });
  });

  it("takes no base as an empty one, and symbol keys as a spread takes them", () => {
    const key = Symbol("key");
    expect(copyWith(undefined, { only: 1 })).toEqual({ only: 1 });
    expect(copyWith({ [key]: "base" }, { other: 1 })[key]).toBe("base");
  });

  it("gives the copies made at one warm site the same hidden class", () => {
    // V8's own answer, through its natives syntax, turned on for the functions compiled after this.
    setFlagsFromString("--allow-natives-syntax");
    const sameHiddenClass = new Function("a", "b", "return %HaveSameMap(a, b)") as (a: object, b: object) => boolean;
    const copy = (n: number) => copyWith({ model: "m", prompt: [n] }, { headers: { n }, id: String(n) });
    for (let n = 0; n < 20; n++) copy(n);
    expect(sameHiddenClass(copy(1), copy(2))).toBe(true);
  });
});
