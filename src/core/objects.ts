/**
 * `{ ...base, ...changes }`, made so that V8 can give every copy the same hidden class. On Node 20 (V8 11.3), once
 * its site is warm, an object literal that begins with a spread clones the source's hidden class into one outside
 * V8's transition tree, so every property the literal adds after the spread makes a hidden class (in the old
 * generation) and a descriptor array of its own on every run, left until the next major GC. Object.assign onto a
 * fresh object follows the shared transitions instead. Copies made on every message and model call are made with
 * this (bench/README, fourteenth round). It sets properties where a spread defines them, which differs only for a
 * `__proto__` key: use it for objects of our own making, not for parsed input.
 */
export function copyWith<T extends object, C extends object>(base: T | undefined, changes: C): Omit<T, keyof C> & C {
  return Object.assign({}, base, changes);
}
