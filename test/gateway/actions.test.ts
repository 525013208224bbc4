/** The gateway's button actions: who may press, once, until when; and the typed fallback where there are no buttons. */
import { afterEach, describe, expect, it } from "vitest";
import { ButtonActions, ACTION_TTL_MS } from "../../src/gateway/actions.js";
import type { ButtonPress, Channel, HandleOutcome, InboundMessage, PressAnswer } from "../../src/core/types.js";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { captureLog } from "../helpers/captured-log.js";
import { sqliteStore } from "../scheduler/helpers.js";
import { schedulerFeature } from "../../src/features/scheduler.js";

const withButtons = { name: "chat", capabilities: { buttons: true } } as unknown as Channel;
const withoutButtons = { name: "chat", capabilities: { buttons: false } } as unknown as Channel;

describe("ButtonActions", () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  async function setUp() {
    const db = await sqliteStore();
    cleanup = async () => {
      await db.store.close();
      await db.cleanup();
    };
    let now = 1_000_000;
    const { log } = captureLog([]);
    const actions = new ButtonActions(db.store, log, () => now);
    const handled: InboundMessage[] = [];
    const handle = async (message: InboundMessage): Promise<HandleOutcome> => {
      handled.push(message);
      return "answered";
    };
    const press = async (actionId: string, userId: string, chatId = "c1"): Promise<PressAnswer[]> => {
      const answers: PressAnswer[] = [];
      const event: ButtonPress = {
        channel: "chat",
        id: `p-${Math.random()}`,
        chat: { id: chatId, type: "group" },
        sender: { id: userId },
        actionId,
        messageId: "m1",
        receivedAt: new Date(now),
        answer: async (reply) => void answers.push(reply),
      };
      await actions.press(event, handle);
      return answers;
    };
    return { actions, handled, press, advance: (ms: number) => (now += ms) };
  }

  it("runs the action once, as the intended user in the intended chat", async () => {
    const { actions, handled, press } = await setUp();
    const { buttons } = await actions.render(withButtons, "Pick one", [[{ label: "Go", run: "/status" }]], { channel: "chat", userIds: ["u1"], chatId: "c1", chatType: "group" });
    const actionId = buttons![0]![0]!.actionId;
    expect(actionId).toMatch(/^[A-Za-z0-9_-]{16}$/);

    expect(await press(actionId, "u2")).toEqual([{ notice: "This button is not for you." }]);
    expect(await press(actionId, "u1", "c2")).toEqual([{ notice: "This button is not for you." }]);
    expect(handled).toEqual([]);

    expect(await press(actionId, "u1")).toEqual([{ clearButtons: true }]);
    expect(handled).toMatchObject([{ id: `chat:press:${actionId}`, text: "/status", sender: { id: "u1" }, chat: { id: "c1", type: "group" }, mentionsBot: true, platformMessageId: "m1" }]);
    expect(await press(actionId, "u1")).toEqual([{ notice: "Already done.", clearButtons: true }]);
    expect(handled).toHaveLength(1);
  });

  it("refuses expired and unknown buttons", async () => {
    const { actions, handled, press, advance } = await setUp();
    const { buttons } = await actions.render(withButtons, "Later", [[{ label: "Go", run: "continue" }]], { channel: "chat", userIds: ["u1"], chatType: "direct" });
    advance(ACTION_TTL_MS + 1);
    expect(await press(buttons![0]![0]!.actionId, "u1")).toEqual([{ notice: "This button has expired." }]);
    expect(await press("not-an-id-we-made", "u1")).toEqual([{ notice: "This button no longer works." }]);
    expect(await press("bad id with spaces", "u1")).toEqual([{ notice: "This button no longer works." }]);
    expect(handled).toEqual([]);
  });

  it("gives a channel without buttons the typed forms in the text, recording nothing", async () => {
    const { actions } = await setUp();
    const rendered = await actions.render(withoutButtons, "Pairing request", [[{ label: "Approve", run: "/pair chat ABCD2345" }, { label: "Deny", run: "/pair deny chat ABCD2345" }]], { channel: "chat", userIds: ["u1"], chatType: "direct" });
    expect(rendered).toEqual({ text: "Pairing request\n\nApprove: /pair chat ABCD2345\nDeny: /pair deny chat ABCD2345" });
  });
});

describe("buttons over the HTTP API (no buttons)", () => {
  let t: TestGateway | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("/tasks and a step-limited turn carry their typed forms", async () => {
    t = await startTestGateway({ llm: { maxSteps: 1 } });
    await t.post({ chatId: "c1", userId: "alice", text: "/remind in 10m stretch" });
    const [task] = await t.gateway.feature(schedulerFeature)!.scheduler!.list({ kind: "operator" }, { everyone: true });
    const tasks = await t.post({ chatId: "c1", userId: "alice", text: "/tasks" });
    expect(tasks.body.replies?.[0]?.text).toMatch(new RegExp(`\\n\\nCancel "stretch": /cancel ${task!.id}$`));

    t.fake.enqueue({ toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "read_file" } }] });
    const stopped = await t.post({ chatId: "c1", userId: "alice", text: "long job" });
    expect(stopped.body.replies?.[0]?.text).toMatch(/I stopped after 1 steps[\s\S]*\n\nContinue: continue$/);
  });

  it("a press while shutting down is not claimed: the button still works after the restart", async () => {
    t = await startTestGateway();
    const { router } = t.gateway;
    const { buttons } = await router.actions.render(withButtons, "Go?", [[{ label: "Go", run: "/status" }]], { channel: "chat", userIds: ["u1"], chatType: "direct" });
    const answers: PressAnswer[] = [];
    const pressOf = (): ButtonPress => ({
      channel: "chat",
      id: "p1",
      chat: { id: "c1", type: "direct" },
      sender: { id: "u1" },
      actionId: buttons![0]![0]!.actionId,
      messageId: "m1",
      receivedAt: new Date(),
      answer: async (reply) => void answers.push(reply),
    });
    await router.drain(0);
    await router.handlePress(pressOf());
    expect(answers).toEqual([{ notice: "Restarting; please press again in a moment." }]);
    const handled: string[] = [];
    await router.actions.press(pressOf(), async (message) => (handled.push(message.text), "answered"));
    expect(handled).toEqual(["/status"]);
  });
});
