import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { riskySettings } from "../../src/access/risks.js";
import { configSchema, type ConfigInput } from "../../src/config.js";
import { formatDoctor, runDoctor } from "../../src/doctor.js";

const risksOf = (input: ConfigInput) => riskySettings(configSchema.parse(input)).map((r) => r.detail);

describe("risky access settings", () => {
  it("finds none in the defaults", () => {
    expect(risksOf({})).toEqual([]);
  });

  it.each<[string, ConfigInput, RegExp]>([
    ["open DMs with exec for guests", { access: { dmPolicy: "open", permissions: { guest: { direct: ["read", "chat", "exec"] } } } }, /dmPolicy is open and guests in direct chats may use exec tools/],
    ["open groups", { access: { groupPolicy: "open" } }, /groupPolicy is open: every group/],
    ["open direct chats whose guests may reach the web", { access: { dmPolicy: "open", permissions: { guest: { direct: ["read", "web"] } } } }, /may use web tools/],
    ["open groups whose guests may write files", { access: { groupPolicy: "open", permissions: { guest: { group: ["read", "workspace"] } } } }, /may use workspace tools/],
    ["a public address without a token", { http: { host: "0.0.0.0" } }, /http\.host is 0\.0\.0\.0 without http\.token/],
    ["web users as owners on a public address", { http: { host: "0.0.0.0", token: "t0ken-value" }, access: { web: { users: "owner" } } }, /web\.users is owner/],
  ])("warns about %s", (_what, input, expected) => {
    const risks = risksOf(input);
    expect(risks).toHaveLength(1);
    expect(risks[0]).toMatch(expected);
  });

  it("does not warn about open DMs that grant guests only reading and chatting", () => {
    expect(risksOf({ access: { dmPolicy: "open" } })).toEqual([]);
  });

  it("shows the warnings in switchboard doctor as WARN lines with a fix, without failing the run", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "switchboard-doctor-"));
    const config = configSchema.parse({ dataDir, access: { groupPolicy: "open" } });
    const results = await runDoctor(config, pino({ level: "silent" }));
    const warning = results.find((r) => r.warning && r.name === "access");
    expect(warning).toMatchObject({ name: "access", ok: true });
    const report = formatDoctor(results);
    expect(report).toMatch(/^WARN access {11}access\.groupPolicy is open.*\n {5}fix: set access\.groupPolicy to allowlist/m);
    expect(report).toMatch(/^OK {3}store/m);
  });
});
