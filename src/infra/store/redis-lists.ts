/** Item lists on Redis: one Redis list per key; a write trims and pushes in one MULTI, so it is atomic. */
import type { RedisClientType } from "@keyv/redis";
import type { ItemLists } from "./types.js";
import type { BackendGuard } from "./backend-guard.js";
import { requireCount, requireKey } from "./checks.js";

export class RedisLists<T> implements ItemLists<T> {
  readonly #prefix: string;

  constructor(
    private readonly client: RedisClientType,
    private readonly guard: BackendGuard,
    private readonly name: string,
    keyPrefix: string,
  ) {
    this.#prefix = `${keyPrefix}lists:${name}:`;
  }

  /** `fresh` changes nothing here: the trim and the push are one round trip anyway. */
  async writeFrom(key: string, from: number, items: readonly T[]): Promise<void> {
    const list = this.#list(key);
    await this.guard.run("list write", `${this.name}:${key}`, async () => {
      const transaction = this.client.multi();
      // LTRIM 0 -1 keeps everything; with from = 0 the list must become empty, which DEL does.
      if (from === 0) transaction.del(list);
      else transaction.lTrim(list, 0, from - 1);
      if (items.length > 0) transaction.rPush(list, items.map((item) => JSON.stringify(item)));
      await transaction.exec();
    });
  }

  async push(key: string, item: T, keep: number): Promise<void> {
    const list = this.#list(key);
    requireCount(keep, "keep", `store list push ${this.name}:${key}`);
    await this.guard.run("list push", `${this.name}:${key}`, async () => {
      await this.client.multi().rPush(list, JSON.stringify(item)).lTrim(list, -keep, -1).exec();
    });
  }

  async tail(key: string, count: number): Promise<T[]> {
    const list = this.#list(key);
    if (count <= 0) return [];
    const values = await this.guard.run("list tail", `${this.name}:${key}`, () => this.client.lRange(list, -count, -1));
    return values.map((value) => JSON.parse(value) as T);
  }

  async read(key: string, until: number, from = 0): Promise<T[]> {
    const list = this.#list(key);
    if (until <= from) return [];
    const values = await this.guard.run("list read", `${this.name}:${key}`, () => this.client.lRange(list, from, until - 1));
    return values.map((value) => JSON.parse(value) as T);
  }

  async delete(key: string): Promise<void> {
    const list = this.#list(key);
    await this.guard.run("list delete", `${this.name}:${key}`, () => this.client.del(list));
  }

  #list(key: string): string {
    requireKey(key, `store list ${this.name}:${key}`);
    return this.#prefix + key;
  }
}
