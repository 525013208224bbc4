import { describe, expect, it } from "vitest";
import { AccessPolicy, type Decision } from "../../src/access/policy.js";
import { ENGLISH, Translator } from "../../src/infra/i18n/index.js";
import { accessConfig, message, type MessageShape } from "./helpers.js";

const PAIRED = new Set(["telegram:77"]);
const policyFor = (config: unknown = {}, webAuthenticated = true) =>
  new AccessPolicy(accessConfig(config), async (channel, userId) => PAIRED.has(`${channel}:${userId}`), webAuthenticated);

const owners = { owners: ["telegram:1", "discord:1"], allowFrom: ["telegram:55"] };
const group = (shape: MessageShape = {}): MessageShape => ({ ...shape, chat: { id: "-100", type: "group", ...shape.chat } });

describe("direct messages", () => {
  const cases: Array<[string, unknown, MessageShape, Decision["kind"], string?]> = [
    ["an owner", owners, { sender: { id: "1" } }, "admit", "owner"],
    ["a user in allowFrom", owners, { sender: { id: "55" } }, "admit", "member"],
    ["a paired user", owners, { sender: { id: "77" } }, "admit", "member"],
    ["a stranger under pairing", owners, { sender: { id: "9" } }, "pair"],
    ["a stranger under allowlist", { ...owners, dmPolicy: "allowlist" }, { sender: { id: "9" } }, "refuse"],
    ["a stranger under open", { ...owners, dmPolicy: "open" }, { sender: { id: "9" } }, "admit", "guest"],
    // The same user id on another channel is another person.
    ["telegram:1's id on feishu", owners, { channel: "feishu", sender: { id: "1" } }, "pair"],
  ];
  it.each(cases)("%s", async (_who, config, shape, kind, role) => {
    const decision = await policyFor(config).decide(message(shape));
    expect(decision.kind).toBe(kind);
    if (role) expect(decision).toMatchObject({ role });
  });
});

describe("group chats", () => {
  const allowed = { ...owners, groups: [{ chat: "telegram:-100" }, { chat: "telegram:-200", requireMention: false }] };
  const cases: Array<[string, unknown, MessageShape, Decision["kind"], string?]> = [
    ["a mention in an allowed chat", allowed, group({ mentionsBot: true, sender: { id: "9" } }), "admit", "guest"],
    ["a member's mention in an allowed chat", allowed, group({ mentionsBot: true, sender: { id: "77" } }), "admit", "member"],
    ["chatter in an allowed chat", allowed, group({ sender: { id: "9" } }), "context"],
    ["chatter in a chat that needs no mention", allowed, group({ chat: { id: "-200" }, sender: { id: "9" } }), "admit", "guest"],
    ["a mention in another chat", allowed, group({ chat: { id: "-300" }, mentionsBot: true }), "refuse"],
    ["chatter in another chat", allowed, group({ chat: { id: "-300" } }), "ignore"],
    ["a mention in any chat under open", { ...owners, groupPolicy: "open" }, group({ mentionsBot: true }), "admit", "guest"],
    ["chatter under open", { ...owners, groupPolicy: "open" }, group({}), "context"],
    ["chatter under open without mentions required", { groupPolicy: "open", requireMention: false }, group({}), "admit"],
    ["an owner's mention in an allowed chat", allowed, group({ mentionsBot: true, sender: { id: "1" } }), "admit", "owner"],
  ];
  it.each(cases)("%s", async (_what, config, shape, kind, role) => {
    const decision = await policyFor(config).decide(message(shape));
    expect(decision.kind).toBe(kind);
    if (role) expect(decision).toMatchObject({ role });
  });

  it("tells an owner how to allow a chat, and nobody else", async () => {
    const policy = policyFor(owners);
    const fromOwner = await policy.decide(message(group({ mentionsBot: true, sender: { id: "1" } })));
    expect(fromOwner.kind === "refuse" ? fromOwner.notice?.(ENGLISH.t) : undefined).toBe(
      'This chat is not on my allowlist. To let me answer here, add { chat: "telegram:-100" } to access.groups.',
    );
    expect(fromOwner.kind === "refuse" ? fromOwner.notice?.(new Translator("zh").speech().t) : undefined).toBe(
      '本聊天不在我的允许列表中。要让我在这里回答，请把 { chat: "telegram:-100" } 加到 access.groups。',
    );
    const fromOther = await policy.decide(message(group({ mentionsBot: true, sender: { id: "9" } })));
    expect(fromOther).toEqual({ kind: "refuse", reason: expect.stringContaining("telegram:-100") });
  });
});

describe("Discord servers", () => {
  const config = {
    ...owners,
    groups: [{ guild: "discord:500", channels: ["501", "502"], roles: ["900"] }, { chat: "discord:777", roles: ["901"] }],
  };
  const inGuild = (channelId: string, roles: string[]): MessageShape => ({
    channel: "discord",
    mentionsBot: true,
    chat: { id: channelId, type: "group", space: "500" },
    sender: { id: "9", roles },
  });
  const cases: Array<[string, MessageShape, Decision["kind"]]> = [
    ["a listed channel, a listed role", inGuild("501", ["900"]), "admit"],
    ["a listed channel, no listed role", inGuild("501", ["899"]), "refuse"],
    ["a listed channel, no roles at all", inGuild("502", []), "refuse"],
    ["a channel of the server that is not listed", inGuild("503", ["900"]), "refuse"],
    ["another server", { ...inGuild("501", ["900"]), chat: { id: "501", type: "group", space: "600" } }, "refuse"],
    ["a chat entry with its own role", { ...inGuild("777", ["901"]), chat: { id: "777", type: "group" } }, "admit"],
  ];
  it.each(cases)("%s", async (_what, shape, kind) => {
    expect((await policyFor(config).decide(message(shape))).kind).toBe(kind);
  });

  it("does not let a role-less sender's chatter become context", async () => {
    const decision = await policyFor(config).decide(message({ ...inGuild("501", []), mentionsBot: false }));
    expect(decision.kind).toBe("ignore");
  });
});

describe("WebChat", () => {
  const web = (id: string): MessageShape => ({ channel: "web", chat: { id: "page" }, sender: { id } });

  it("treats web users as members by default, and listed owners as owners", async () => {
    const policy = policyFor({ owners: ["web:boss"] });
    expect(await policy.decide(message(web("alice")))).toEqual({ kind: "admit", role: "member" });
    expect(await policy.decide(message(web("boss")))).toEqual({ kind: "admit", role: "owner" });
  });

  it("never makes a web user an owner without the HTTP token, whatever id or web.users says", async () => {
    const listed = policyFor({ owners: ["web:boss", "web:local"] }, false);
    expect(await listed.decide(message(web("boss")))).toEqual({ kind: "admit", role: "member" });
    expect(await listed.decide(message(web("local")))).toEqual({ kind: "admit", role: "member" });
    expect(listed.isOwner("web", "boss")).toBe(false);
    const everyone = policyFor({ web: { users: "owner" } }, false);
    expect(await everyone.decide(message(web("local")))).toEqual({ kind: "admit", role: "member" });
    expect(await policyFor({ web: { users: "owner" } }, true).decide(message(web("x")))).toEqual({ kind: "admit", role: "owner" });
  });

  it("applies the DM policy to web users when web.users is policy", async () => {
    const policy = policyFor({ web: { users: "policy" }, allowFrom: ["web:bob"] });
    expect((await policy.decide(message(web("alice")))).kind).toBe("pair");
    expect(await policy.decide(message(web("bob")))).toEqual({ kind: "admit", role: "member" });
  });
});
