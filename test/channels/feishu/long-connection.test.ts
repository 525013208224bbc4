import { afterEach, describe, expect, it } from "vitest";
import { otherEvent, textEvent } from "../../fakes/feishu/events.js";
import { startRig, type Rig } from "./harness.js";
import { eventually } from "../../helpers/wait.js";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe("Feishu long connection", () => {
  it("connects, pings, and acknowledges each event frame with code 200", async () => {
    rig = await startRig();
    const ack = await rig.fake.pushSocket(textEvent("hello over the socket", { chatId: "oc_dm" }));
    expect(ack).toEqual({ code: 200 });
    const [message] = await rig.waitForReceived(1);
    expect(message).toMatchObject({ text: "hello over the socket", chat: { id: "oc_dm", type: "direct" } });
    expect(rig.fake.socket.pings[0]).toBe(33);
    expect(rig.channel.status()).toEqual({ connected: true, detail: "long connection" });
  });

  it("acknowledges and ignores other event types and malformed messages", async () => {
    rig = await startRig();
    expect(await rig.fake.socket.push(otherEvent("im.message.reaction.created_v1"))).toEqual({ code: 200 });
    const malformed = { schema: "2.0", header: { event_id: "e1", event_type: "im.message.receive_v1" }, event: { message: {} } };
    expect(await rig.fake.socket.push(malformed)).toEqual({ code: 200 });
    await rig.fake.pushSocket(textEvent("after the noise"));
    expect((await rig.waitForReceived(1)).map((m) => m.text)).toEqual(["after the noise"]);
    expect(rig.logs.some((l) => l.msg === "ignored a malformed Feishu message event" && l.eventId === "e1")).toBe(true);
  });

  it("hands a message over once when Feishu pushes it twice, and again after a reconnect", async () => {
    rig = await startRig();
    const event = textEvent("only once");
    await rig.fake.pushSocket(event);
    await rig.fake.pushSocket(event);
    rig.fake.socket.drop();
    await rig.fake.socket.waitForConnections(2);
    await rig.fake.pushSocket(event);
    await rig.fake.pushSocket(textEvent("sentinel"));
    expect((await rig.waitForReceived(2)).map((m) => m.text)).toEqual(["only once", "sentinel"]);
    expect(rig.logs.some((l) => l.msg === "Feishu long connection lost; reconnecting")).toBe(true);
    await eventually(() => rig!.logs.some((l) => l.msg === "Feishu long connection re-established"), "the reconnected log line");
  });

  it("says clearly when Feishu does not let the app use a long connection", async () => {
    rig = await startRig({ fake: { refuseLongConnection: { code: 1000040351, msg: "app not allowed to use long connection" } } });
    await eventually(() => rig!.logs.some((l) => l.level >= 50), "an error line");
    const line = rig.logs.find((l) => l.level >= 50)!;
    expect(line.msg).toMatch(/^Feishu refused the long connection \(code 1000040351: app not allowed to use long connection\)\./);
    expect(line.msg).toContain("persistent connection");
    expect(line.msg).toContain("channels.feishu.mode to webhook");
    expect(rig.channel.status()).toEqual({
      connected: false,
      detail: "Feishu refused the long connection (code 1000040351: app not allowed to use long connection)",
    });
  });

  it("survives frames that are not protobuf, and events whose payload is not JSON", async () => {
    rig = await startRig();
    await rig.fake.socket.sendBytes(Buffer.from("definitely not a frame"));
    const event = (messageId: string, sum: string, seq: string) => ({ type: "event", message_id: messageId, sum, seq });
    await rig.fake.socket.sendFrame({ service: 33, method: 1, headers: event("x", "1", "0"), payload: Buffer.from("{oops") });
    await rig.fake.socket.sendFrame({ service: 33, method: 1, headers: event("y", "0", "9"), payload: Buffer.from("{}") });
    await rig.fake.pushSocket(textEvent("still here"));
    expect((await rig.waitForReceived(1)).map((m) => m.text)).toEqual(["still here"]);
  });
});
