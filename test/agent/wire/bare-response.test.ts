/**
 * The Response requestFetch and the watched steps answer with, made without the WHATWG constructor: what the AI SDK
 * reads (status, headers, the body's reader) comes as given, and the rest behaves as a real Response's does.
 */
import { describe, expect, it } from "vitest";
import { BareResponse } from "../../../src/agent/wire/bare-response.js";

const encoder = new TextEncoder();

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function readAll(body: ReadableStream<Uint8Array> | null): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  const reader = body!.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) text += decoder.decode(read.value, { stream: true });
  return text + decoder.decode();
}

describe("BareResponse", () => {
  it("hands over the stream, the headers and the status as given", async () => {
    const body = streamOf('{"a":', "1}");
    const headers = new Headers({ "content-type": "application/json" });
    const response = new BareResponse(body, 201, "Created", headers);
    expect(response.body).toBe(body);
    expect(response.headers).toBe(headers);
    expect([response.status, response.statusText, response.ok, response.redirected, response.type]).toEqual([201, "Created", true, false, "default"]);
    expect(response.bodyUsed).toBe(false);
    expect(await readAll(response.body)).toBe('{"a":1}');
    expect(response.bodyUsed).toBe(true);
  });

  it("counts a body as used once it was read from or cancelled, as fetch does, not when merely locked", async () => {
    const locked = new BareResponse(streamOf("x"), 200, "OK", new Headers());
    const reader = locked.body!.getReader();
    expect(locked.bodyUsed).toBe(false);
    await reader.read();
    expect(locked.bodyUsed).toBe(true);

    const cancelled = new BareResponse(streamOf("x"), 200, "OK", new Headers());
    await cancelled.body!.cancel();
    expect(cancelled.bodyUsed).toBe(true);
  });

  it("rejects, rather than throws, when a body that was locked or read is asked for whole", async () => {
    const response = new BareResponse(streamOf("x"), 200, "OK", new Headers());
    response.body!.getReader();
    let reading: Promise<string> | undefined;
    expect(() => (reading = response.text())).not.toThrow();
    await expect(reading).rejects.toThrow(TypeError);
  });

  it("reads the whole body as a Response does: text, json, bytes, once", async () => {
    expect(await new BareResponse(streamOf("天气 ", "🌦"), 200, "OK", new Headers()).text()).toBe("天气 🌦");
    expect(await new BareResponse(streamOf('{"ok":', "true}"), 200, "OK", new Headers()).json()).toEqual({ ok: true });
    const buffer = new Uint8Array(await new BareResponse(streamOf("abc"), 200, "OK", new Headers()).arrayBuffer());
    expect([...buffer]).toEqual([97, 98, 99]);
    expect([...(await new BareResponse(streamOf("ab", "c"), 200, "OK", new Headers()).bytes())]).toEqual([97, 98, 99]);

    const once = new BareResponse(streamOf("x"), 200, "OK", new Headers());
    await once.text();
    expect(once.bodyUsed).toBe(true);
    await expect(once.text()).rejects.toThrow(TypeError);
  });

  it("gives a text body as a stream of its bytes, or as the text itself", async () => {
    const streamed = new BareResponse('{"text":"héllo"}', 200, "OK", new Headers());
    expect(await readAll(streamed.body)).toBe('{"text":"héllo"}');
    expect(await new BareResponse('{"text":"héllo"}', 200, "OK", new Headers()).json()).toEqual({ text: "héllo" });
  });

  it("clones into a real Response whose body reads the same", async () => {
    const original = new BareResponse(streamOf("same"), 202, "Accepted", new Headers({ "x-id": "1" }));
    const copy = original.clone();
    expect(copy).toBeInstanceOf(Response);
    expect([copy.status, copy.headers.get("x-id")]).toEqual([202, "1"]);
    expect(await copy.text()).toBe("same");
    expect(await original.text()).toBe("same");
  });

  it("has no body for a body-less answer", async () => {
    const empty = new BareResponse(null, 204, "No Content", new Headers());
    expect(empty.body).toBeNull();
    expect(empty.ok).toBe(true);
    expect(await empty.text()).toBe("");
  });

  it("refuses a status Response refuses, with a RangeError", () => {
    for (const status of [101, 199, 600, Number.NaN]) expect(() => new BareResponse(null, status, "", new Headers())).toThrow(RangeError);
    expect(new BareResponse(null, 599, "", new Headers()).ok).toBe(false);
  });
});
