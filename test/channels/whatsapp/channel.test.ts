/** The WhatsApp channel on its own against the fake Cloud API: what comes in, what goes out, the 24-hour window. */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkWhatsApp } from "../../../src/channels/whatsapp/check.js";
import { SendError } from "../../../src/core/send-error.js";
import { startFakeWhatsApp } from "../../fakes/whatsapp/index.js";
import { alice, buttonReply, documentOf, image, listReply, location, text, voiceNote } from "../../fakes/whatsapp/notifications.js";
import { eventually } from "../../helpers/wait.js";
import { startWhatsApp, whatsappSettings, type WhatsAppHarness } from "./harness.js";

let h: WhatsAppHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const DAY_MS = 24 * 3_600_000;
const to = { channel: "whatsapp", chatId: alice.waId };

describe("WhatsApp channel", () => {
  it("normalizes text, image, voice note, document, location and a reply; downloads the voice note", async () => {
    h = await startWhatsApp();
    const { fake } = h;
    const voice = fake.addMedia(Buffer.from("OggS opus voice"), "audio/ogg");
    const photo = fake.addMedia(Buffer.from("\xff\xd8 jpeg", "latin1"), "image/jpeg");
    for (const content of [text("plain"), image(photo, "look"), voiceNote(voice), documentOf(photo, "a.pdf"), location(52.52, 13.4, "Berlin")]) {
      expect((await fake.deliver(h.hook, fake.inbound(alice, content, { context: { id: "wamid.earlier" } }))).status).toBe(200);
    }
    await eventually(() => h!.received.length === 5, "five messages");
    const [plain, withImage, withVoice, withDocument, place] = h.received;
    expect(plain).toMatchObject({ channel: "whatsapp", chat: { id: alice.waId, type: "direct" }, sender: { id: alice.waId, name: "Alice" }, text: "plain", mentionsBot: true, replyTo: { messageId: "wamid.earlier" } });
    expect(withImage).toMatchObject({ text: "look", attachments: [{ kind: "image", ref: photo, mime: "image/jpeg" }] });
    expect(withVoice!.attachments).toEqual([{ kind: "voice", ref: voice, mime: "audio/ogg" }]);
    expect(withDocument!.attachments[0]).toMatchObject({ kind: "file", name: "a.pdf" });
    expect(place!.text).toBe("[location: 52.52, 13.4 (Berlin)]");
    const path = await h.channel.download(withVoice!.attachments[0]!, join(h.dataDir, "in"));
    expect((await readFile(path)).toString()).toBe("OggS opus voice");
  });

  it("turns button and list replies into presses, each once; a notice answers as a message", async () => {
    h = await startWhatsApp();
    const { fake } = h;
    const tap = fake.inbound(alice, buttonReply("act_1", "Go"), { context: { id: "wamid.buttons" } });
    await fake.deliver(h.hook, tap);
    await fake.deliver(h.hook, tap);
    await fake.deliver(h.hook, fake.inbound(alice, listReply("act_2", "Second"), { context: { id: "wamid.list" } }));
    await eventually(() => h!.presses.length === 2, "two presses");
    expect(h.presses.map((p) => [p.actionId, p.messageId, p.sender.id])).toEqual([
      ["act_1", "wamid.buttons", alice.waId],
      ["act_2", "wamid.list", alice.waId],
    ]);
    await h.presses[0]!.answer({ notice: "Already done." });
    expect(fake.sent.at(-1)).toMatchObject({ to: alice.waId, text: "Already done." });
    expect(h.received).toHaveLength(0);
  });

  it("sends three buttons as reply buttons and more as a list; clips labels to WhatsApp's limits", async () => {
    h = await startWhatsApp();
    await h.fake.deliver(h.hook, h.fake.inbound(alice, text("hi")));
    const three = [[{ label: "Approve", actionId: "a1" }, { label: "Deny", actionId: "a2" }, { label: "A label far longer than twenty", actionId: "a3" }]];
    await h.channel.sendText(to, "Choose:", { buttons: three });
    const buttons = (h.fake.sent.at(-1)!.body.interactive as { type: string; action: { buttons: Array<{ reply: { title: string } }> } });
    expect(buttons.type).toBe("button");
    expect(buttons.action.buttons.map((b) => [...b.reply.title].length)).toEqual([7, 4, 20]);
    const five = [Array.from({ length: 5 }, (_, i) => ({ label: `Option ${i}`, actionId: `o${i}` }))];
    await h.channel.sendText(to, "Pick one", { buttons: five });
    expect(h.fake.sent.at(-1)!.body.interactive).toMatchObject({ type: "list", action: { sections: [{ rows: expect.arrayContaining([{ id: "o4", title: "Option 4" }]) }] } });
    // A last part over 1,024 characters is cut so that the buttons' message body fits.
    const sent = await h.channel.sendText(to, "x ".repeat(1500), { buttons: three });
    expect(sent).toHaveLength(3);
    expect(h.fake.sent.at(-1)!.type).toBe("interactive");
  });

  it("uploads files: an Ogg/Opus voice note as a voice message (its caption as text), other audio as audio, a large image as a document", async () => {
    h = await startWhatsApp();
    await h.fake.deliver(h.hook, h.fake.inbound(alice, text("hi")));
    const voice = join(h.dataDir, "note.ogg");
    await writeFile(voice, Buffer.from("OggS voice bytes"));
    await h.channel.sendFile(to, { path: voice, kind: "voice", name: "note.ogg", mime: "audio/ogg", caption: "listen" });
    const audio = h.fake.sent.find((s) => s.type === "audio")!;
    expect(h.fake.uploads.get((audio.body.audio as { id: string }).id)).toMatchObject({ mime: "audio/ogg", name: "note.ogg" });
    expect(audio.body.audio).toMatchObject({ voice: true });
    expect(h.fake.sent.at(-1)).toMatchObject({ type: "text", text: "listen" });
    const song = join(h.dataDir, "song.mp3");
    await writeFile(song, Buffer.from("ID3 song bytes"));
    await h.channel.sendFile(to, { path: song, kind: "audio", name: "song.mp3", mime: "audio/mpeg" });
    expect(h.fake.sent.at(-1)).toMatchObject({ type: "audio" });
    expect(h.fake.sent.at(-1)!.body.audio).not.toHaveProperty("voice");
    const big = join(h.dataDir, "big.png");
    await writeFile(big, Buffer.alloc(6 * 1024 * 1024));
    await h.channel.sendFile(to, { path: big, kind: "image", name: "big.png", mime: "image/png" });
    expect(h.fake.sent.at(-1)).toMatchObject({ type: "document", body: { document: { filename: "big.png" } } });
  });

  it("classifies refusals: a 5xx is unavailable, 130429 rate-limited, a content refusal rejected with the parts that arrived", async () => {
    h = await startWhatsApp({ settings: { readReceipts: false } });
    await h.fake.deliver(h.hook, h.fake.inbound(alice, text("hi")));
    h.fake.failNext(/\/messages$/, { status: 500, code: 1, message: "An unknown error occurred" });
    expect(await h.channel.sendText(to, "a").catch((e: unknown) => e)).toMatchObject({ kind: "unavailable" });
    h.fake.failNext(/\/messages$/, { status: 400, code: 130429, message: "(#130429) Rate limit hit" });
    expect(await h.channel.sendText(to, "a").catch((e: unknown) => e)).toMatchObject({ kind: "rate_limited" });
    h.fake.failNext(/\/messages$/, { status: 400, code: 131026, message: "(#131026) Message Undeliverable" }, { skip: 1 });
    const failure = (await h.channel.sendText(to, `${"a".repeat(4000)}\n\n${"b".repeat(100)}`).catch((e: unknown) => e)) as SendError;
    expect(failure).toBeInstanceOf(SendError);
    expect(failure.kind).toBe("rejected");
    expect(failure.message).toMatch(/part 2 of 2.*Message Undeliverable.*code 131026/);
    expect(failure.sent).toHaveLength(1);
  });

  it("outside the 24-hour window: logs WhatsApp's 131047 clearly without a template, and sends through the reminder template with one", async () => {
    h = await startWhatsApp();
    const { fake } = h;
    await fake.deliver(h.hook, fake.inbound(alice, text("hi")));
    fake.now += DAY_MS + 60_000;
    await h.channel.sendText(to, "Time to stretch!");
    await fake.deliverStatuses(h.hook);
    const warning = await eventually(() => h!.logs.find((r) => r.code === 131047), "the re-engagement warning");
    expect(warning.msg).toMatch(/more than 24 hours.*channels\.whatsapp\.templates\.reminder/);
    await h.close();

    const templated = await startFakeWhatsApp();
    templated.approvedTemplates.add("switchboard_reminder");
    h = await startWhatsApp({ fake: templated, settings: { templates: { reminder: "switchboard_reminder", language: "en" } } });
    await templated.deliver(h.hook, templated.inbound(alice, text("hi")));
    await h.channel.sendText(to, "Inside the window\n\nstill free-form");
    expect(templated.sent.at(-1)).toMatchObject({ type: "text" });
    templated.now += DAY_MS + 60_000;
    await h.channel.sendText(to, "Time to **stretch**!\n\nTwo lines.", { buttons: [[{ label: "Done", actionId: "d1" }]] });
    expect(templated.sent.at(-1)).toMatchObject({ type: "template", text: "Time to *stretch*! · Two lines.", body: { template: { name: "switchboard_reminder", language: { code: "en" } } } });
    expect(templated.pendingStatuses).toHaveLength(0);
  });

  it("reports a refused token in status() and in the doctor check", async () => {
    const fake = await startFakeWhatsApp();
    const realToken = fake.accessToken;
    fake.accessToken = "EAAG-rotated";
    h = await startWhatsApp({ fake, settings: { accessToken: realToken } });
    await eventually(() => h!.channel.status().detail?.includes("access token was refused"), "the refusal in status()");
    expect(h.channel.status().connected).toBe(false);
    await expect(checkWhatsApp(whatsappSettings(fake, { accessToken: realToken }))).rejects.toThrow(/Invalid OAuth access token.*code 190/);
    expect(await checkWhatsApp(whatsappSettings(fake))).toMatch(/phone number \+1 555-078-3881 \("Switchboard Test", quality GREEN\)/);
  });

  it("skips entries for another phone number and malformed messages, and still takes the good ones", async () => {
    h = await startWhatsApp();
    const { fake } = h;
    const good = fake.inbound(alice, text("good"));
    const entry = (good.entry as Array<{ changes: Array<{ value: { messages: unknown[]; metadata: { phone_number_id: string } } }> }>)[0]!;
    entry.changes[0]!.value.messages.push({ from: alice.waId, type: "text" });
    const other = structuredClone(good);
    (other.entry as typeof good.entry & Array<typeof entry>)[0]!.changes[0]!.value.metadata.phone_number_id = "999";
    expect((await fake.deliver(h.hook, other)).status).toBe(200);
    expect((await fake.deliver(h.hook, good)).status).toBe(200);
    await eventually(() => h!.received.length === 1, "the good message");
    expect(h.received[0]!.text).toBe("good");
    expect(h.logs.some((r) => /skipped/.test(r.msg) && /malformed/.test(String(r.skipped)))).toBe(true);
  });

  it("answers 500 when a notification cannot be stored, so that Meta delivers it again", async () => {
    h = await startWhatsApp();
    await h.store.close();
    const { status } = await h.fake.deliver(h.hook, h.fake.inbound(alice, text("kept for later")));
    expect(status).toBe(500);
    expect(h.received).toHaveLength(0);
    expect(h.logs.some((r) => /answering 500 so that it is delivered again/.test(r.msg))).toBe(true);
  });

  it("the fake Cloud API refuses what Meta refuses: a text over 4,096 characters, a fourth button, a wrong token", async () => {
    const fake = await startFakeWhatsApp();
    const post = (body: unknown, token = fake.accessToken) =>
      fetch(`${fake.apiUrl}/${fake.phoneNumberId}/messages`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    const base = { messaging_product: "whatsapp", to: alice.waId };
    const long = await post({ ...base, type: "text", text: { body: "x".repeat(4097) } });
    expect([long.status, ((await long.json()) as { error: { code: number } }).error.code]).toEqual([400, 100]);
    const buttons = Array.from({ length: 4 }, (_, i) => ({ type: "reply", reply: { id: `b${i}`, title: `B${i}` } }));
    const four = await post({ ...base, type: "interactive", interactive: { type: "button", body: { text: "pick" }, action: { buttons } } });
    expect([four.status, ((await four.json()) as { error: { code: number } }).error.code]).toEqual([400, 131009]);
    const wrong = await post({ ...base, type: "text", text: { body: "hi" } }, "EAAG-wrong");
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: { code: number; type: string } }).error).toMatchObject({ code: 190, type: "OAuthException" });
    expect(fake.sent).toHaveLength(0);
    await fake.close();
  });
});
