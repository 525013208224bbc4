/**
 * The one rule for every connection the agent causes (web_fetch, the browser): resolve the host, refuse private,
 * loopback, link-local and other non-public addresses unless the operator listed them in `web.allowPrivate`, and
 * hand back the checked address so the caller connects to exactly that one (no second lookup, no DNS-rebinding gap).
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/** Resolves a host name to all its addresses; injectable so tests can make a name point anywhere. */
export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Why ipaddr.js's range names are refused, in words a user understands. */
const RANGE_REASONS: Record<string, string> = {
  unspecified: "an unspecified address (0.0.0.0/8 or ::)",
  broadcast: "the broadcast address",
  multicast: "a multicast address",
  linkLocal: "a link-local address (169.254.0.0/16 or fe80::/10, where cloud metadata services live)",
  loopback: "a loopback address (this machine)",
  carrierGradeNat: "a carrier-grade NAT address (100.64.0.0/10)",
  private: "a private network address (RFC 1918)",
  uniqueLocal: "a unique-local IPv6 address (fc00::/7)",
  reserved: "a reserved address",
};

export const ALLOW_SETTING = "web.allowPrivate";

/** A connection the guard refused; the message names the address, the reason and the setting. */
export class AddressRefusedError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    const shown = host === address ? address : `${host} (${address})`;
    super(`Refused to connect to ${shown}: it is ${reason}. The operator can allow it by listing it in ${ALLOW_SETTING}.`);
    this.name = "AddressRefusedError";
  }
}

type AllowEntry = { kind: "cidr"; range: [ipaddr.IPv4 | ipaddr.IPv6, number] } | { kind: "host"; host: string; port?: number };

/** Parses `web.allowPrivate` entries: `host:port` (that port only), `host` (any port) or a CIDR; throws on nonsense. */
export function parseAllowList(entries: readonly string[]): AllowEntry[] {
  return entries.map((raw) => {
    const entry = raw.trim().toLowerCase();
    if (entry.includes("/")) {
      try {
        return { kind: "cidr", range: ipaddr.parseCIDR(entry) };
      } catch {
        throw new Error(`${ALLOW_SETTING}: "${raw}" is not a valid CIDR range`);
      }
    }
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    if (bracketed) return hostEntry(bracketed[1]!, bracketed[2], raw);
    if (isIP(entry) === 6) return { kind: "host", host: entry };
    const [host, port, ...rest] = entry.split(":");
    if (!host || rest.length > 0) throw new Error(`${ALLOW_SETTING}: "${raw}" is not host, host:port or a CIDR range`);
    return hostEntry(host, port, raw);
  });
}

function hostEntry(host: string, port: string | undefined, raw: string): AllowEntry {
  if (port === undefined) return { kind: "host", host };
  const n = Number(port);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`${ALLOW_SETTING}: "${raw}" has an invalid port`);
  return { kind: "host", host, port: n };
}

/** Why `address` is not a public address, or undefined when it is. */
export function nonPublicReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return "not a valid IP address";
  // IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it carries.
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range === "unicast") return undefined;
  return RANGE_REASONS[range] ?? `a special-purpose address (${range})`;
}

export interface AddressGuardOptions {
  allowPrivate?: readonly string[];
  resolver?: Resolver;
}

export class AddressGuard {
  private readonly allow: AllowEntry[];
  private readonly resolver: Resolver;

  constructor(opts: AddressGuardOptions = {}) {
    this.allow = parseAllowList(opts.allowPrivate ?? []);
    this.resolver = opts.resolver ?? systemResolver;
  }

  /**
   * The address to connect to for `host:port`: the first resolved address that passes. Throws AddressRefusedError
   * when none does (naming the first refused), so a name with one public and one private address uses the public one.
   */
  async resolve(host: string, port: number): Promise<{ address: string; family: 4 | 6 }> {
    const hostname = host.replace(/^\[|\]$/g, "").toLowerCase();
    const candidates = isIP(hostname) ? [{ address: hostname, family: isIP(hostname) }] : await this.lookup(hostname);
    let refusal: AddressRefusedError | undefined;
    for (const { address, family } of candidates) {
      const reason = nonPublicReason(address);
      if (reason === undefined || this.allowed(hostname, address, port)) return { address, family: family === 6 ? 6 : 4 };
      refusal ??= new AddressRefusedError(hostname, address, reason);
    }
    throw refusal ?? new Error(`${hostname} did not resolve to any address`);
  }

  private async lookup(hostname: string): Promise<Array<{ address: string; family: number }>> {
    const found = await this.resolver(hostname);
    if (found.length === 0) throw new Error(`${hostname} did not resolve to any address`);
    return found;
  }

  private allowed(hostname: string, address: string, port: number): boolean {
    const ip = ipaddr.process(address);
    return this.allow.some((entry) => {
      if (entry.kind === "cidr") return ip.kind() === entry.range[0].kind() && ip.match(entry.range);
      const hostMatches = entry.host === hostname || (ipaddr.isValid(entry.host) && ipaddr.process(entry.host).toString() === ip.toString());
      return hostMatches && (entry.port === undefined || entry.port === port);
    });
  }
}
