/**
 * The channel contract (src/core/types.ts), one suite for every adapter against its fake: start() resolves once
 * messages reach the handler; each message is handed over once; capabilities are all declared; sendText answers
 * one SentMessage per part and resumes at `fromPart`; a failed send is a SendError; a message handled as
 * "deferred" is handed over again after a restart, and an answered one is not.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SendError } from "../../src/core/send-error.js";
import type { Channel, HandleOutcome, InboundHandler, InboundMessage, OutboundTarget } from "../../src/core/types.js";
import { eventually } from "../helpers/wait.js";

export interface ContractRig {
  /** Builds a channel instance on the rig's store (the same store every time) and starts it with `handler`. */
  start(handler: InboundHandler): Promise<Channel>;
  /** Stops the running instance. */
  stop(): Promise<void>;
  /** A person writes `text` to the bot on the platform. */
  inject(text: string): Promise<void>;
  /** Texts the platform got from the bot, in order. */
  sent(): string[] | Promise<string[]>;
  /** The next send meets a 5xx (or the platform's "unavailable"). */
  failNextSend(): void;
  /** Where the bot may send. */
  target: OutboundTarget;
  close(): Promise<void>;
}

export function channelContract(name: string, makeRig: () => Promise<ContractRig>): void {
  describe(`channel contract: ${name}`, () => {
    let rig: ContractRig | undefined;
    afterEach(async () => {
      await rig?.close();
      rig = undefined;
    });

    const recording = (outcome: HandleOutcome, into: InboundMessage[]): InboundHandler => async (message) => {
      into.push(message);
      return outcome;
    };

    it("start() resolves once messages reach the handler; each is handed over once, as this channel's", async () => {
      rig = await makeRig();
      const received: InboundMessage[] = [];
      const channel = await rig.start(recording("answered", received));
      await eventually(() => channel.status().connected, "connected");
      await rig.inject("contract: hello");
      await eventually(() => received.length === 1, "the message handed over");
      expect(received[0]).toMatchObject({ channel: channel.name, text: expect.stringContaining("contract: hello") });
      expect(received[0]!.id.startsWith(`${channel.name}:`)).toBe(true);
      expect(received[0]!.receivedAt).toBeInstanceOf(Date);
    });

    it("declares every capability", async () => {
      rig = await makeRig();
      const { capabilities } = await rig.start(async () => "answered");
      for (const flag of ["edits", "draftStreaming", "reactions", "buttons", "threads", "typing"] as const) {
        expect(typeof capabilities[flag], flag).toBe("boolean");
      }
      expect(capabilities.maxTextLength).toBeGreaterThan(0);
      expect(capabilities.maxUploadBytes).toBeGreaterThanOrEqual(0);
      expect(["ogg-opus", "audio-file", "any"]).toContain(capabilities.voice);
    });

    it("sends text as parts, one SentMessage each; fromPart resumes after the parts that arrived; a failure is a SendError", async () => {
      rig = await makeRig();
      const channel = await rig.start(async () => "answered");
      const max = channel.capabilities.maxTextLength;
      const long = `${"a".repeat(max - 10)}\n\n${"b".repeat(20)}`;
      const sent = await channel.sendText(rig.target, long);
      expect(sent.map((m) => typeof m.messageId)).toEqual(["string", "string"]);
      await channel.sendText(rig.target, long, { fromPart: 1 });
      expect((await rig.sent()).map((t) => t.trim()[0])).toEqual(["a", "b", "b"]);
      rig.failNextSend();
      const failure = await channel.sendText(rig.target, "will fail").catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(SendError);
      expect((failure as SendError).kind).toBe("unavailable");
    });

    it("with buttons (where it has them), sends the same parts, one SentMessage each", async () => {
      rig = await makeRig();
      const channel = await rig.start(async () => "answered");
      if (!channel.capabilities.buttons) return;
      const long = `${"a".repeat(channel.capabilities.maxTextLength - 10)}\n\n${"b".repeat(20)}`;
      const buttons = [[{ label: "Go", actionId: "contract_action_1", style: "primary" as const }, { label: "Stop", actionId: "contract_action_2" }]];
      const sent = await channel.sendText(rig.target, long, { buttons });
      expect(sent).toHaveLength(2);
      expect(new Set(sent.map((m) => m.messageId)).size).toBe(2);
    });

    it("hands a message handled as deferred over again after a restart, and an answered one not", async () => {
      rig = await makeRig();
      const first: InboundMessage[] = [];
      await rig.start(recording("deferred", first));
      await rig.inject("contract: deferred");
      await eventually(() => first.length === 1, "the message handed over");
      await rig.stop();
      const second: InboundMessage[] = [];
      await rig.start(recording("answered", second));
      await eventually(() => second.length === 1, "the deferred message handed over again after the restart");
      expect(second[0]!.id).toBe(first[0]!.id);
      await rig.stop();
      const third: InboundMessage[] = [];
      await rig.start(recording("answered", third));
      await rig.inject("contract: marker");
      await eventually(() => third.length >= 1, "the marker");
      expect(third.map((m) => m.text)).toEqual([expect.stringContaining("contract: marker")]);
    });
  });
}
