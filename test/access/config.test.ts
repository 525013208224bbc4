import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { accessConfig } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "sb-access-config-"));

/** The problems loadConfig reports for a user file holding `yaml`, as the user reads them. */
function problemsOf(yaml: string): string {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, yaml);
  const error = (() => {
    try {
      return loadConfig({ configPath: path, env: {} });
    } catch (err) {
      return err;
    }
  })();
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).problems.join("\n");
}

describe("access configuration", () => {
  it("defaults to pairing for DMs, an allowlist for groups, and the issue's role grants", () => {
    const config = accessConfig();
    expect(config).toMatchObject({ dmPolicy: "pairing", groupPolicy: "allowlist", requireMention: true, owners: [] });
    expect(config.permissions.member).toEqual({ direct: ["read", "chat", "workspace", "exec"], group: ["read", "chat"] });
    expect(config.permissions.guest).toEqual({ direct: ["read", "chat"], group: ["read", "chat"] });
    expect(config.web).toEqual({ users: "member", limits: false });
  });

  it("does not share default lists between parsed configs", () => {
    const first = accessConfig();
    first.owners.push("telegram:1");
    first.permissions.guest.group.push("exec");
    expect(accessConfig().owners).toEqual([]);
    expect(accessConfig().permissions.guest.group).toEqual(["read", "chat"]);
  });

  const bad: Array<[string, string, RegExp]> = [
    ["an unquoted long id", "access:\n  owners: [telegram:1]\n  groups:\n    - guild: discord:1\n      channels: [123456789012345678]\n", /access\.groups\.0\.channels\.0 = .*: expected string/],
    ["an owner without a channel", "access:\n  owners: ['123456']\n", /access\.owners\.0 = "123456": must be a channel/],
    ["an owner on an unknown channel", "access:\n  owners: ['irc:U1']\n", /access\.owners\.0 = "irc:U1": names no channel \(known: telegram/],
    ["an unknown DM policy", "access:\n  dmPolicy: closed\n", /access\.dmPolicy = "closed": expected one of .*"pairing"/],
    ["an entry with both chat and guild", "access:\n  groups:\n    - { chat: 'discord:1', guild: 'discord:2' }\n", /exactly one of chat or space/],
    ["an entry with neither", "access:\n  groups:\n    - { requireMention: false }\n", /exactly one of chat or space/],
    ["channels on a chat entry", "access:\n  groups:\n    - { chat: 'discord:1', channels: ['2'] }\n", /access\.groups\.0\.channels = .*: only a space entry has channels/],
    ["roles outside Discord", "access:\n  groups:\n    - { chat: 'telegram:-1', roles: ['2'] }\n", /access\.groups\.0\.roles = .*: roles exist only on Discord/],
    ["a guild of another channel", "access:\n  groups:\n    - { guild: 'telegram:-1' }\n", /access\.groups\.0\.space = "telegram:-1": must be one of "discord:", "slack:"/],
    ["a space of a platform without spaces", "access:\n  groups:\n    - { space: 'feishu:x' }\n", /access\.groups\.0\.space = "feishu:x": must be one of/],
    ["both space and its older name guild", "access:\n  groups:\n    - { space: 'slack:T1', guild: 'discord:2' }\n", /access\.groups\.0: unknown setting guild|guild/],
    ["an unknown risk class", "access:\n  permissions:\n    guest:\n      group: [read, shell]\n", /access\.permissions\.guest\.group\.1/],
    ["a zero rate", "access:\n  limits:\n    perUser: { messages: 0 }\n", /access\.limits\.perUser\.messages = 0: must be at least 1/],
    ["an unknown setting", "access:\n  dmpolicy: open\n", /access\.dmpolicy: unknown setting/],
  ];
  it("reads guild, the older name, as space; Slack workspaces and user groups are spaces and roles too", () => {
    const config = accessConfig({ groups: [{ guild: "discord:1" }, { space: "slack:T1", roles: ["S1"] }, { chat: "slack:C1", roles: ["S2"] }] });
    expect(config.groups.map((g) => g.space)).toEqual(["discord:1", "slack:T1", undefined]);
    expect(config.groups[1]!.roles).toEqual(["S1"]);
  });

  it.each(bad)("refuses %s with a clear message", (_what, yaml, expected) => {
    expect(problemsOf(yaml)).toMatch(expected);
  });
});
