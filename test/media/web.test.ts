/**
 * deliver_artifacts end to end on WebChat: the whole gateway, the fake model writing a file and delivering it,
 * the file arriving in the chat, and the receipts reaching the model, the ledger and the HTTP API.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Receipt } from "../../src/media/receipts.js";
import { openChat, startTestGateway, type TestGateway } from "../e2e/harness.js";
import { FINAL_ANSWER, mixedBatchReceipts, placeHugeFile, REPORT, scriptDelivery } from "./delivery-script.js";

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const TOKEN = "web-e2e-token";
const CHAT = "deliver-chat";
const auth = { authorization: `Bearer ${TOKEN}` };

describe("deliver_artifacts on WebChat", () => {
  it("sends the file into the chat, and the receipts carry the chat's message id", async () => {
    t = await startTestGateway();
    await placeHugeFile(t.config.dataDir, `web:${CHAT}`);
    scriptDelivery(t.fake);

    const answer = await t.post({ chatId: CHAT, userId: "alice", text: "send me the report" });

    expect(answer.status).toBe(200);
    const replies = answer.body.replies as Array<{ text: string; attachments: Array<{ name: string; url: string; size: number }> }>;
    expect(replies.map((r) => r.text)).toEqual(["Your report", FINAL_ANSWER]);
    const [attachment] = replies[0]!.attachments;
    expect(attachment).toMatchObject({ name: "report.txt", size: REPORT.length });
    const download = await fetch(`${t.url}${attachment!.url}`);
    expect(await download.text()).toBe(REPORT);
    const receipts = mixedBatchReceipts(t.fake);

    // The receipt's message id is the id of the chat line that carries the file.
    const chat = await openChat(t.url, CHAT);
    chat.ws.close();
    const history = chat.frames.find((f) => f.type === "history") as { messages: Array<{ id: string; attachments: unknown[] }> };
    const fileLine = history.messages.find((m) => m.attachments.length > 0);
    expect(receipts[0]!.message_id).toBe(fileLine?.id);

    const api = await fetch(`${t.url}/api/v1/receipts?chat=web:${CHAT}`);
    const listed = (await api.json()) as { receipts: Array<Receipt & { session_key: string }> };
    expect(listed.receipts.map((r) => r.error_code)).toEqual(["too_large", "not_found", null]);
    expect(listed.receipts[2]).toMatchObject({ message_id: fileLine?.id, session_key: `web:${CHAT}` });
  });

  it("keeps the receipts API behind the token and checks its query", async () => {
    t = await startTestGateway({ http: { token: TOKEN } });
    expect((await fetch(`${t.url}/api/v1/receipts`)).status).toBe(401);
    const bad = await fetch(`${t.url}/api/v1/receipts?limit=0`, { headers: auth });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "bad_request", problems: [expect.stringMatching(/^limit:/)] });
    const empty = await fetch(`${t.url}/api/v1/receipts`, { headers: auth });
    expect(await empty.json()).toEqual({ receipts: [] });
  });
});
