/** The DingTalk channel's Stream connection against the fake gateway: pings, disconnects, drops, refusals, acks. */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DingtalkChannel } from "../../../src/channels/dingtalk/channel.js";
import { checkDingtalk } from "../../../src/channels/dingtalk/check.js";
import { completeSettings, dingtalkConfigSchema } from "../../../src/channels/dingtalk/config.js";
import type { ButtonPress, InboundMessage } from "../../../src/core/types.js";
import type { SendError } from "../../../src/core/send-error.js";
import { createStore } from "../../../src/infra/store/index.js";
import type { Store } from "../../../src/infra/store/types.js";
import { startFakeDingtalk, type FakeDingtalk } from "../../fakes/dingtalk/index.js";
import { closeInOrder } from "../../helpers/close.js";
import { eventually } from "../../helpers/wait.js";
import { silentLog } from "../../scheduler/helpers.js";

let ding: FakeDingtalk | undefined;
let channel: DingtalkChannel | undefined;
let store: Store | undefined;
afterEach(() => closeInOrder([channel && { close: () => channel!.stop() }, store && { close: () => store!.close() }, ding]).then(() => (ding = channel = store = undefined)));

async function startChannel(settings: Record<string, unknown> = {}): Promise<InboundMessage[]> {
  ding = await startFakeDingtalk();
  store = await createStore({ url: null, dataDir: await mkdtemp(join(tmpdir(), "switchboard-dingtalk-")), log: silentLog });
  channel = new DingtalkChannel({ settings: completeSettings(dingtalkConfigSchema.parse({ ...ding.settings(), ...settings })), store, log: silentLog, backoff: { baseMs: 10, maxMs: 50 } });
  const received: InboundMessage[] = [];
  await channel.start(async (message) => {
    received.push(message);
    return "answered";
  });
  await ding.stream.waitForConnections(1);
  return received;
}

describe("the DingTalk Stream connection", () => {
  it("answers SYSTEM pings with code 200 and the same data", async () => {
    await startChannel();
    const answer = await ding!.stream.ping();
    expect(answer.code).toBe(200);
    const ping = ding!.stream.replies.find((r) => r === answer)!;
    expect(JSON.parse(ping.data!)).toHaveProperty("opaque");
  });

  it("reconnects with a new ticket after a SYSTEM disconnect and after a drop, and keeps receiving", async () => {
    const received = await startChannel();
    ding!.stream.disconnect();
    await ding!.stream.waitForConnections(2);
    ding!.stream.drop();
    await ding!.stream.waitForConnections(3);
    await eventually(() => channel!.status().connected, "connected again");
    await ding!.stream.pushRobot(ding!.robotMessage("after reconnects"));
    await eventually(() => received.length === 1, "the message");
    expect(received[0]).toMatchObject({ text: "after reconnects", chat: { type: "direct", id: "manager4321" }, sender: { id: "manager4321", name: "张三" } });
    expect(ding!.stream.opens).toHaveLength(3);
  });

  it("normalizes a group @-mention, rich text with a picture, and a file", async () => {
    const received = await startChannel();
    await ding!.stream.pushRobot(ding!.robotMessage("hello team", { group: "cidTeam==" }));
    await ding!.stream.pushRobot(ding!.robotMessage("", { msgtype: "richText", content: { richText: [{ text: "look at " }, { type: "picture", downloadCode: "dc-pic" }, { text: "this" }] } }));
    await ding!.stream.pushRobot(ding!.robotMessage("", { msgtype: "file", content: { downloadCode: "dc-file", fileName: "plan.pdf" } }));
    await eventually(() => received.length === 3, "three messages");
    expect(received[0]).toMatchObject({ chat: { id: "cidTeam==", type: "group", title: "项目群" }, text: "hello team", mentionsBot: true });
    expect(received[1]).toMatchObject({ text: "look at this", attachments: [{ kind: "image", ref: "dc-pic" }] });
    expect(received[2]).toMatchObject({ attachments: [{ kind: "file", ref: "dc-file", name: "plan.pdf" }] });
  });

  it("leaves a callback unacknowledged while the store cannot record it; DingTalk's next push is handled", async () => {
    await startChannel();
    const dataDir = await mkdtemp(join(tmpdir(), "switchboard-dingtalk-"));
    // The channel's store goes away: nothing can be recorded, so nothing is acknowledged.
    await channel!.stop();
    await store!.close();
    store = await createStore({ url: null, dataDir, log: silentLog });
    const settings = completeSettings(dingtalkConfigSchema.parse(ding!.settings()));
    channel = new DingtalkChannel({ settings, store, log: silentLog, backoff: { baseMs: 10, maxMs: 50 } });
    const received: InboundMessage[] = [];
    await channel.start(async (message) => {
      received.push(message);
      return "answered";
    });
    await store.close();
    const pushed = ding!.stream.pushRobot(ding!.robotMessage("kept safe"), { redeliverAfterMs: 200, maxPushes: 50 });
    await eventually(() => ding!.stream.pushed >= 2, "a second push of the unacknowledged callback");
    expect(received).toHaveLength(0);
    await channel.stop();
    store = await createStore({ url: null, dataDir, log: silentLog });
    channel = new DingtalkChannel({ settings, store, log: silentLog, backoff: { baseMs: 10, maxMs: 50 } });
    await channel.start(async (message) => {
      received.push(message);
      return "answered";
    });
    expect((await pushed).code).toBe(200);
    await eventually(() => received.length === 1, "handed over once recorded");
    expect(received[0]!.text).toBe("kept safe");
  });

  it("refuses to start with wrong credentials, saying so", async () => {
    ding = await startFakeDingtalk();
    store = await createStore({ url: null, dataDir: await mkdtemp(join(tmpdir(), "switchboard-dingtalk-")), log: silentLog });
    channel = new DingtalkChannel({ settings: completeSettings(dingtalkConfigSchema.parse({ ...ding.settings(), clientSecret: "wrong" })), store, log: silentLog });
    await expect(channel.start(async () => "answered")).rejects.toThrow("DingTalk refused to open a Stream connection");
  });

  it("classifies send failures and refused staff ids", async () => {
    await startChannel({ replyFormat: "text" });
    const to = (chatId: string) => ({ channel: "dingtalk", chatId });
    ding!.api.fail(/batchSend/, 1, 503);
    expect(((await channel!.sendText(to("u1"), "x").catch((e: unknown) => e)) as SendError).kind).toBe("unavailable");
    ding!.api.fail(/batchSend/, 1, 429);
    expect(((await channel!.sendText(to("u1"), "x").catch((e: unknown) => e)) as SendError).kind).toBe("rate_limited");
    ding!.api.invalidStaff.add("ghost");
    expect(((await channel!.sendText(to("ghost"), "x").catch((e: unknown) => e)) as SendError).kind).toBe("rejected");
    expect(((await channel!.sendText(to("cidUnknown=="), "x").catch((e: unknown) => e)) as SendError).kind).toBe("rejected");
    ding!.api.expireTokens();
    await channel!.sendText(to("u1"), "after expiry");
    expect(ding!.api.sent.map((m) => m.text)).toEqual(["after expiry"]);
    expect(ding!.api.tokensIssued).toBe(2);
  });

  it("uploads a file after oapi refused the token (40014) with a new token, once", async () => {
    await startChannel();
    const dir = await mkdtemp(join(tmpdir(), "switchboard-dingtalk-file-"));
    const path = join(dir, "notes.txt");
    await writeFile(path, "notes");
    await channel!.sendText({ channel: "dingtalk", chatId: "u1" }, "before expiry");
    expect(ding!.api.tokensIssued).toBe(1);
    ding!.api.expireTokens();
    await channel!.sendFile({ channel: "dingtalk", chatId: "u1" }, { path, kind: "file", name: "notes.txt" });
    expect(ding!.api.tokensIssued).toBe(2);
    expect([...ding!.api.uploads.values()].map((u) => [u.name, u.bytes.toString()])).toEqual([["notes.txt", "notes"]]);
  });

  it("doctor: reports the token and the Stream ticket, and names the refused call", async () => {
    ding = await startFakeDingtalk();
    const config = dingtalkConfigSchema.parse(ding.settings());
    expect(await checkDingtalk(config)).toContain("Stream ticket issued");
    await expect(checkDingtalk({ ...config, clientSecret: "wrong" })).rejects.toThrow("accessToken: HTTP 400");
  });

  it("sends buttons as an ActionCard whose links send a marker, and hands the marker over once as a press", async () => {
    ding = await startFakeDingtalk();
    store = await createStore({ url: null, dataDir: await mkdtemp(join(tmpdir(), "switchboard-dingtalk-")), log: silentLog });
    channel = new DingtalkChannel({ settings: completeSettings(dingtalkConfigSchema.parse(ding.settings())), store, log: silentLog });
    const received: InboundMessage[] = [];
    const presses: ButtonPress[] = [];
    await channel.start(
      async (message) => {
        received.push(message);
        return "answered";
      },
      async (press) => void presses.push(press),
    );
    await ding.stream.waitForConnections(1);
    const sent = await channel.sendText({ channel: "dingtalk", chatId: "u1" }, "Deploy now?", {
      buttons: [[{ label: "Deploy", actionId: "act_deploy" }, { label: "Cancel", actionId: "act_cancel" }]],
    });
    expect(sent).toHaveLength(1);
    const [card] = ding.api.sent;
    expect(card).toMatchObject({ via: "user", to: "u1", kind: "sampleActionCard2", text: "Deploy now?", param: { actionTitle1: "Deploy", actionTitle2: "Cancel" } });
    const link = new URL(String(card!.param.actionURL1));
    expect(link.protocol).toBe("dtmd:");
    // The presser's client sends the link's content as a message to the robot.
    const pressed = ding.robotMessage(link.searchParams.get("content")!, { from: "u1" });
    await ding.stream.pushRobot(pressed);
    await ding.stream.pushRobot(pressed);
    await eventually(() => presses.length === 1, "the press");
    expect(presses[0]).toMatchObject({ actionId: "act_deploy", chat: { id: "u1", type: "direct" }, sender: { id: "u1" } });
    expect(received).toEqual([]);
  });
});
