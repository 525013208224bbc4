/**
 * One Chromium, one BrowserContext per session (cookies, storage and tabs never shared between people), each
 * closed after `idleMinutes` without use; at most `maxContexts` at once, the longest idle one closed first to make
 * room. Chromium runs with an explicit, clean environment (no API keys), a profile in a temporary folder of its
 * own, and every request through the FilteringProxy.
 */
import { accessSync, constants } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { AddressGuard } from "../infra/net/address-guard.js";
import type { BrowserConfig } from "./config.js";
import { FilteringProxy, targetHost, type Refusal } from "./proxy.js";

const CANDIDATES = ["chromium", "chromium-browser", "google-chrome"];

export interface BrowserSession {
  context: BrowserContext;
  /** The tab the tools act on. */
  active: Page;
  lastUsed: number;
  /** Every host:port this context's pages asked for (requests, redirect hops, WebSockets). */
  requestedHosts: Set<string>;
}

/** The executable: the configured path, or the first candidate on PATH; throws naming the setting. */
export function findChromium(configured: string | undefined, path = process.env.PATH ?? ""): string {
  const candidates = configured ? [configured] : path.split(delimiter).flatMap((dir) => CANDIDATES.map((name) => join(dir, name)));
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      continue;
    }
  }
  throw new Error(configured ? `browser.executablePath ${configured} is not an executable file` : "Chromium was not found on PATH; install the chromium package or set browser.executablePath");
}

export class BrowserPool {
  private browser: Promise<{ browser: Browser; profileDir: string }> | undefined;
  private readonly sessions = new Map<string, BrowserSession>();
  readonly proxy: FilteringProxy;
  private proxyUrl: Promise<string> | undefined;
  /** The proxy's URL once Chromium runs (Chromium's command line carries it). */
  proxyAddress: string | undefined;

  constructor(
    private readonly config: BrowserConfig,
    guard: AddressGuard,
    private readonly now: () => number = Date.now,
  ) {
    this.proxy = new FilteringProxy(guard);
  }

  /** The session's context, made (and Chromium launched) on first use. */
  async acquire(sessionKey: string): Promise<BrowserSession> {
    await this.sweep();
    const existing = this.sessions.get(sessionKey);
    if (existing) {
      existing.lastUsed = this.now();
      if (existing.active.isClosed()) existing.active = existing.context.pages()[0] ?? (await existing.context.newPage());
      return existing;
    }
    while (this.sessions.size >= this.config.maxContexts) await this.closeOldest();
    const { browser } = await this.launch();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: false, serviceWorkers: "block" });
    context.setDefaultNavigationTimeout(PAGE_LOAD_MS);
    context.setDefaultTimeout(ACTION_MS);
    const requestedHosts = new Set<string>();
    const note = (url: string): void => {
      if (WEB_URL.test(url)) requestedHosts.add(targetHost(url));
    };
    context.on("request", (request) => note(request.url()));
    context.on("page", (page) => page.on("websocket", (socket) => note(socket.url())));
    const session: BrowserSession = { context, active: await context.newPage(), lastUsed: this.now(), requestedHosts };
    this.sessions.set(sessionKey, session);
    return session;
  }

  get(sessionKey: string): BrowserSession | undefined {
    return this.sessions.get(sessionKey);
  }

  /**
   * The proxy's refusals since `mark` that this session's pages could have caused: those to a host one of its
   * pages asked for. Chromium's own traffic (update checks, account lookups, ...) goes through the same proxy but
   * is never a page's request, so it is left out instead of being reported to the model as the page's.
   */
  blockedSince(session: BrowserSession, mark: number): Refusal[] {
    return this.proxy.refusalsSince(mark).filter((refusal) => session.requestedHosts.has(targetHost(refusal.target)));
  }

  get openContexts(): number {
    return this.sessions.size;
  }

  async release(sessionKey: string): Promise<boolean> {
    const session = this.sessions.get(sessionKey);
    if (!session) return false;
    this.sessions.delete(sessionKey);
    await session.context.close().catch(() => undefined);
    return true;
  }

  /** Closes every context idle for `idleMinutes` or longer. */
  async sweep(): Promise<void> {
    const cutoff = this.now() - this.config.idleMinutes * 60_000;
    for (const [key, session] of [...this.sessions]) if (session.lastUsed <= cutoff) await this.release(key);
  }

  async close(): Promise<void> {
    for (const key of [...this.sessions.keys()]) await this.release(key);
    const launched = await this.browser?.catch(() => undefined);
    this.browser = undefined;
    if (launched) {
      await launched.browser.close().catch(() => undefined);
      await rm(launched.profileDir, { recursive: true, force: true });
    }
    if (this.proxyUrl) await this.proxy.close();
    this.proxyUrl = undefined;
  }

  private async closeOldest(): Promise<void> {
    const oldest = [...this.sessions].sort(([, a], [, b]) => a.lastUsed - b.lastUsed)[0];
    if (oldest) await this.release(oldest[0]);
  }

  private launch(): Promise<{ browser: Browser; profileDir: string }> {
    this.browser ??= this.start().catch((err: unknown) => {
      this.browser = undefined;
      throw err;
    });
    return this.browser;
  }

  private async start(): Promise<{ browser: Browser; profileDir: string }> {
    const executablePath = findChromium(this.config.executablePath);
    this.proxyUrl ??= this.proxy.listen();
    const proxy = await this.proxyUrl;
    this.proxyAddress = proxy;
    const profileDir = await mkdtemp(join(tmpdir(), "switchboard-chromium-"));
    // Loaded with the first browser, not at start: playwright-core is ~14 MiB of source (and more once compiled)
    // that a gateway whose users never browse would hold for its whole life.
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({
      executablePath,
      // Only what Chromium needs: never the gateway's environment and its keys.
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: profileDir, TMPDIR: profileDir, XDG_CONFIG_HOME: profileDir, XDG_CACHE_HOME: profileDir },
      // Root cannot use Chromium's own sandbox; CI and containers often run as root.
      chromiumSandbox: process.getuid?.() !== 0,
      timeout: PAGE_LOAD_MS,
      args: [
        `--proxy-server=${proxy}`,
        "--proxy-bypass-list=<-loopback>",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--no-first-run",
      ],
    });
    return { browser, profileDir };
  }
}

/** A page load's limit; actions (click, type, wait) get a shorter one. */
export const PAGE_LOAD_MS = 30_000;
const ACTION_MS = 10_000;
const WEB_URL = /^(https?|wss?):\/\//i;
