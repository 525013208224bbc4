import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { targetOf } from "../../../src/core/types.js";
import { postMessage, webPerTest, type WebHarness } from "./harness.js";
import { TestSocket } from "./ws-client.js";

const web = webPerTest();
async function localFile(h: WebHarness, name: string, content: string | Buffer): Promise<string> {
  const path = join(h.dataDir, `source-${randomUUID()}`, name);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
  return path;
}
interface Attachment {
  name: string;
  mime: string;
  size: number;
  url: string;
}
/** The attachment of the chat's first transcript entry. */
async function firstAttachment(h: WebHarness, chatId: string): Promise<Attachment> {
  const entries = await h.store.namespace<{ attachments: Attachment[] }[]>("web").get(chatId);
  return entries![0]!.attachments[0]!;
}

describe("WebChat files", () => {
  it("sends a file that downloads from its URL, to the chat's sockets", async () => {
    const h = await web();
    const { socket } = await TestSocket.hello(h.url, "c1");
    const content = Buffer.from("%PDF-1.4 not really\n");
    const path = await localFile(h, "report.pdf", content);

    await h.channel.sendFile({ channel: "web", chatId: "c1" }, { path, kind: "file", name: "report.pdf", mime: "application/pdf", caption: "Here" });
    const frame = await socket.next("message");
    await socket.close();
    expect(frame).toMatchObject({ role: "bot", text: "Here" });
    const [attachment] = frame.attachments as Attachment[];
    expect(attachment).toMatchObject({ name: "report.pdf", mime: "application/pdf", size: content.length });
    expect(attachment!.url).toMatch(/^\/api\/v1\/files\/[0-9a-f-]{36}\/report\.pdf$/);

    const res = await fetch(`${h.url}${attachment!.url}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="report\.pdf"/);
    expect(Buffer.from(await res.arrayBuffer()).equals(content)).toBe(true);
  });

  it("keeps an unusual name to one path segment and serves it by its encoded URL", async () => {
    const h = await web();
    const path = await localFile(h, "x.txt", "hi");
    await h.channel.sendFile({ channel: "web", chatId: "c1" }, { path, kind: "file", name: "../Bericht März 2025.txt" });
    const attachment = await firstAttachment(h, "c1");
    expect(attachment.name).toBe(".._Bericht März 2025.txt");
    const res = await fetch(`${h.url}${attachment.url}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toContain("filename*=UTF-8''.._Bericht%20M%C3%A4rz%202025.txt");
    expect(await res.text()).toBe("hi");
  });

  it("answers 404 for any URL sendFile did not make", async () => {
    const h = await web();
    const path = await localFile(h, "a.txt", "a");
    await h.channel.sendFile({ channel: "web", chatId: "c1" }, { path, kind: "file", name: "a.txt" });
    const { url } = await firstAttachment(h, "c1");
    const id = url.split("/")[4]!;

    // A file put into web-files by someone else, under a well-formed id.
    const planted = randomUUID();
    await mkdir(join(h.dataDir, "web-files", planted), { recursive: true });
    await writeFile(join(h.dataDir, "web-files", planted, "secret.txt"), "secret");

    for (const forged of [
      `/api/v1/files/${randomUUID()}/a.txt`,
      `/api/v1/files/${id}/b.txt`,
      `/api/v1/files/${planted}/secret.txt`,
      `/api/v1/files/not-an-id/a.txt`,
      `/api/v1/files/${id}/..%2F..%2Fswitchboard.sqlite`,
      `/api/v1/files/..%2F${id}/a.txt`,
    ]) {
      const res = await fetch(`${h.url}${forged}`);
      expect(res.status, forged).toBe(404);
      // The code this API has always answered with, which scripts may read.
      expect(((await res.json()) as { error: string }).error, forged).toBe("not_found");
    }
    expect((await fetch(`${h.url}${url}`)).status).toBe(200);
  });

  it("requires the token to download when one is configured", async () => {
    const token = "file-token-1";
    const h = await web({ token });
    const path = await localFile(h, "a.txt", "a");
    await h.channel.sendFile({ channel: "web", chatId: "c1" }, { path, kind: "file", name: "a.txt" });
    const { url } = await firstAttachment(h, "c1");
    expect((await fetch(`${h.url}${url}`)).status).toBe(401);
    expect((await fetch(`${h.url}${url}`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });

  it("refuses a file over maxUploadBytes with a clear error", async () => {
    const h = await web({ maxUploadBytes: 10 });
    const path = await localFile(h, "big.bin", Buffer.alloc(11));
    await expect(h.channel.sendFile({ channel: "web", chatId: "c1" }, { path, kind: "file", name: "big.bin" })).rejects.toThrow(
      "File big.bin is 11 bytes; WebChat sends at most 10",
    );
    expect(await h.store.namespace("web").get("c1")).toBeUndefined();
  });

  it("returns files sent while an API request waits among its replies", async () => {
    let path = "";
    const h = await web({
      handler: (channel) => async (m) => {
        await channel.sendText(targetOf(m), "see attached", { replyTo: m.platformMessageId });
        await channel.sendFile(targetOf(m), { path, kind: "file", name: "notes.txt", mime: "text/plain" });
        return "answered";
      },
    });
    path = await localFile(h, "notes.txt", "notes");
    const res = await postMessage(h.url, { chatId: "c1", userId: "u1", text: "send notes" });
    const body = (await res.json()) as { replies: { text: string; attachments: Attachment[] }[] };
    expect(body.replies).toEqual([
      { text: "see attached", attachments: [] },
      { text: "", attachments: [expect.objectContaining({ name: "notes.txt", mime: "text/plain", size: 5 })] },
    ]);
    expect(await (await fetch(`${h.url}${body.replies[1]!.attachments[0]!.url}`)).text()).toBe("notes");
  });

  it("refuses download() with a clear error", async () => {
    const h = await web();
    await expect(h.channel.download({ kind: "file", ref: "x" })).rejects.toThrow("Cannot download x: WebChat messages carry no attachments");
  });
});
