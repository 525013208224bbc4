/**
 * The channel kit's access token: fetched once, shared by concurrent callers, kept until `earlyMs` before the
 * platform's expiry (or half its lifetime, when that is shorter), and dropped when the platform refuses it.
 */
export interface IssuedToken {
  value: string;
  lifetimeMs: number;
}

export class TokenCache {
  private token: { value: string; expiresAt: number } | undefined;
  private fetching: Promise<string> | undefined;

  constructor(
    private readonly issue: () => Promise<IssuedToken>,
    private readonly earlyMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(): Promise<string> {
    if (this.token && this.now() < this.token.expiresAt) return Promise.resolve(this.token.value);
    this.fetching ??= this.fetch().finally(() => (this.fetching = undefined));
    return this.fetching;
  }

  /** Runs `call` with the token in hand; when the platform refuses that token (`refused`), once more with a new one. */
  async use<T>(call: (token: string) => Promise<T>, refused: (err: unknown) => boolean): Promise<T> {
    try {
      return await call(await this.get());
    } catch (err) {
      if (!refused(err)) throw err;
      // The platform refused the token: the get() below fetches a new one.
      this.token = undefined;
      return call(await this.get());
    }
  }

  /** When the token in hand is replaced; undefined before the first one. */
  expiry(): Date | undefined {
    return this.token ? new Date(this.token.expiresAt) : undefined;
  }

  private async fetch(): Promise<string> {
    const { value, lifetimeMs } = await this.issue();
    this.token = { value, expiresAt: this.now() + Math.max(lifetimeMs - this.earlyMs, lifetimeMs / 2) };
    return value;
  }
}
