/** The browser's filtering proxy on its own: a browser that hangs up while a name is looked up. */
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { FilteringProxy } from "../../src/browser/proxy.js";
import { AddressGuard } from "../../src/infra/net/address-guard.js";
import { eventually } from "../helpers/wait.js";

let proxy: FilteringProxy | undefined;
afterEach(() => proxy?.close());

/** A resolver that answers only when told to, and says when it was asked. */
function heldResolver() {
  const asked: string[] = [];
  let answer: (addresses: Array<{ address: string; family: number }>) => void = () => undefined;
  const resolver = (hostname: string) => {
    asked.push(hostname);
    return new Promise<Array<{ address: string; family: number }>>((resolve) => (answer = resolve));
  };
  return { asked, resolver, release: () => answer([{ address: "192.0.2.10", family: 4 }]) };
}

async function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise((resolve) => socket.once("connect", resolve));
  return socket;
}

describe("the filtering proxy", () => {
  it.each([
    ["a CONNECT", "CONNECT slow.example:443 HTTP/1.1\r\nHost: slow.example:443\r\n\r\n"],
    ["a WebSocket upgrade", "GET http://slow.example/ws HTTP/1.1\r\nHost: slow.example\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"],
  ])("outlives a browser that resets %s while its name is looked up, and connects nowhere for it", async (_what, request) => {
    const held = heldResolver();
    proxy = new FilteringProxy(new AddressGuard({ resolver: held.resolver }));
    const url = await proxy.listen();

    const browser = await open(url);
    browser.write(request);
    await eventually(() => held.asked.length === 1, "the proxy to look the name up");
    browser.resetAndDestroy();
    await new Promise((resolve) => browser.once("close", resolve));
    held.release();

    // Still serving: the next request is answered (a private address is refused with a 403).
    const next = await open(url);
    next.write("CONNECT 127.0.0.1:9 HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n");
    let answer = "";
    next.on("data", (chunk: Buffer) => (answer += chunk.toString()));
    await eventually(() => answer.includes("403"), "the proxy's answer to the next request");
    next.destroy();
    expect(answer).toMatch(/^HTTP\/1\.1 403 Forbidden/);
  });
});
