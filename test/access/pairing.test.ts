import { afterEach, describe, expect, it } from "vitest";
import { CODE_ALPHABET, normalizeCode } from "../../src/access/pairing-code.js";
import {
  CODE_TTL_MS,
  FAILED_APPROVALS_WINDOW_MS,
  MAX_FAILED_APPROVALS,
  PairingBook,
  type PairingRequest,
} from "../../src/access/pairing.js";
import { openTestStore, type TestStore } from "./helpers.js";
import { CHANNEL_NAMES } from "../helpers/channel-names.js";

const codeOf = (request: PairingRequest): string => {
  if (request.status === "full") throw new Error("expected a code");
  return request.code;
};

function pairingSuite(name: string, url: string | null): void {
  describe(name, () => {
    let t: TestStore | undefined;
    let clock = Date.parse("2026-01-01T00:00:00Z");
    const now = () => clock;
    afterEach(async () => {
      await t?.close();
      t = undefined;
    });
    const book = async () => {
      t = await openTestStore(url);
      return new PairingBook(t.store, CHANNEL_NAMES, now);
    };
    const ann = { channel: "telegram" as const, userId: "42", chatId: "42", name: "Ann" };

    it("issues an 8-character code without look-alike characters, and the same code while it is valid", async () => {
      const pairing = await book();
      const first = await pairing.request(ann);
      expect(first.status).toBe("issued");
      const code = codeOf(first);
      expect(code).toMatch(new RegExp(`^[${CODE_ALPHABET}]{8}$`));
      expect(code).not.toMatch(/[0O1I]/);
      expect(await pairing.request(ann)).toMatchObject({ status: "pending", code });
      expect(await pairing.isApproved("telegram", "42")).toBe(false);
    });

    it("keeps at most three codes waiting per channel, and frees a slot when one expires", async () => {
      const pairing = await book();
      for (const userId of ["1", "2", "3"]) await pairing.request({ ...ann, userId, chatId: userId });
      expect(await pairing.request({ ...ann, userId: "4" })).toEqual({ status: "full" });
      // Another channel has its own three.
      expect((await pairing.request({ ...ann, channel: "discord" })).status).toBe("issued");
      clock += CODE_TTL_MS;
      expect((await pairing.request({ ...ann, userId: "4" })).status).toBe("issued");
    });

    it("approves a code (in any case, with spaces) once; the user becomes a member", async () => {
      const pairing = await book();
      const code = codeOf(await pairing.request(ann));
      const sloppy = `${code.slice(0, 4).toLowerCase()} ${code.slice(4)}`;
      const approval = await pairing.approve("telegram", sloppy, "cli");
      expect(approval).toMatchObject({ ok: true, member: { channel: "telegram", userId: "42", name: "Ann", approvedBy: "cli" } });
      expect(await pairing.isApproved("telegram", "42")).toBe(true);
      expect(await pairing.isApproved("discord", "42")).toBe(false);
      expect(await pairing.approve("telegram", code, "cli")).toEqual({ ok: false, reason: "unknown" });
      expect(await pairing.pending()).toEqual([]);
      expect((await pairing.members()).map((m) => m.userId)).toEqual(["42"]);
    });

    it("does not approve an expired code, or a code of another channel", async () => {
      const pairing = await book();
      const code = codeOf(await pairing.request(ann));
      expect(await pairing.approve("discord", code, "cli")).toEqual({ ok: false, reason: "unknown" });
      clock += CODE_TTL_MS;
      expect(await pairing.approve("telegram", code, "cli")).toEqual({ ok: false, reason: "unknown" });
      expect(await pairing.isApproved("telegram", "42")).toBe(false);
    });

    it("refuses malformed codes without counting them, and pauses approvals after too many wrong ones", async () => {
      const pairing = await book();
      const code = codeOf(await pairing.request(ann));
      expect(await pairing.approve("telegram", "O0I1O0I1", "cli")).toEqual({ ok: false, reason: "malformed" });
      expect(await pairing.approve("telegram", "short", "cli")).toEqual({ ok: false, reason: "malformed" });
      const wrong = code === "ABCDEFGH" ? "HGFEDCBA" : "ABCDEFGH";
      for (let i = 0; i < MAX_FAILED_APPROVALS; i += 1) {
        expect(await pairing.approve("telegram", wrong, "cli")).toEqual({ ok: false, reason: "unknown" });
      }
      // Even the right code waits now: guessing cannot go on.
      expect(await pairing.approve("telegram", code, "cli")).toEqual({ ok: false, reason: "locked" });
      expect((await pairing.request({ ...ann, channel: "discord" })).status).toBe("issued");
      clock += FAILED_APPROVALS_WINDOW_MS;
      expect((await pairing.approve("telegram", code, "cli")).ok).toBe(true);
    });

    it("revokes a member and a waiting code", async () => {
      const pairing = await book();
      await pairing.approve("telegram", codeOf(await pairing.request(ann)), "cli");
      await pairing.request({ ...ann, userId: "7", chatId: "7" });
      expect(await pairing.revoke("telegram", "42")).toBe(true);
      expect(await pairing.revoke("telegram", "7")).toBe(true);
      expect(await pairing.revoke("telegram", "7")).toBe(false);
      expect(await pairing.isApproved("telegram", "42")).toBe(false);
      expect(await pairing.pending("telegram")).toEqual([]);
    });

    it("fails loudly, naming the record, when the approvals in the store are unreadable", async () => {
      const pairing = await book();
      await t!.store.namespace<unknown>("access").set("pairing:members:telegram", ["not", "a", "table"]);
      await expect(pairing.isApproved("telegram", "42")).rejects.toThrow(/telegram pairing approvals in the store are unreadable/);
    });
  });
}

pairingSuite("pairing on SQLite", null);
describe.skipIf(!process.env.REDIS_URL)("on Redis", () => pairingSuite("pairing on Redis", process.env.REDIS_URL ?? null));

describe("normalizeCode", () => {
  it.each([
    ["abcd2345", "ABCD2345"],
    ["ABCD-2345", "ABCD2345"],
    [" abcd 2345 ", "ABCD2345"],
    ["ABCD234", undefined],
    ["ABCD23450", undefined],
    ["ABCD2340", undefined],
    ["ABCDI345", undefined],
  ])("%j -> %j", (input, expected) => {
    expect(normalizeCode(input)).toBe(expected);
  });
});
