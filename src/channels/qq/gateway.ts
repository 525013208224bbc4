/**
 * The QQ bot gateway (WebSocket): `GET /gateway` names the URL; the server's op 10 Hello gives the heartbeat
 * interval; op 2 Identify (`QQBot <token>`, the public-domain intents) starts a session, op 6 Resume (session id
 * and the last sequence received) continues one after op 7 Reconnect or a drop; op 1 heartbeats carry the last
 * sequence, op 11 acknowledges them; op 9 Invalid Session starts over with Identify. Dispatches (op 0) carry `s`.
 */
import WebSocket from "ws";
import { z } from "zod";
import type { ChannelStatus } from "../../core/types.js";
import type { Logger } from "../../infra/log.js";
import { PlatformApiError } from "../platform-call.js";
import { DEFAULT_BACKOFF, Reconnector, type Backoff } from "../reconnect.js";
import type { QqApi } from "./api.js";

/** GUILDS, PUBLIC_GUILD_MESSAGES (@-mentions in channels), DIRECT_MESSAGE, GROUP_AND_C2C_EVENT, INTERACTION. */
export const PUBLIC_INTENTS = (1 << 0) | (1 << 30) | (1 << 12) | (1 << 25) | (1 << 26);

const payloadSchema = z.object({ op: z.number(), d: z.unknown().optional(), s: z.number().nullish(), t: z.string().nullish(), id: z.string().nullish() });
export type Dispatch = { type: string; id: string | undefined; data: unknown };

export interface GatewayOptions {
  api: QqApi;
  log: Logger;
  /** Takes a dispatched event; resolves once it is recorded. */
  onDispatch(dispatch: Dispatch): Promise<void>;
  backoff?: Backoff;
}


export class QqGateway {
  private socket: WebSocket | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly reconnect: Reconnector;
  private stopped = true;
  private sessionId: string | undefined;
  private seq: number | null = null;
  private state: ChannelStatus = { connected: false, detail: "not started" };
  /** Identify and Resume counts, for status and tests. */
  readonly sessions = { identified: 0, resumed: 0 };

  constructor(private readonly opts: GatewayOptions) {
    this.reconnect = new Reconnector(opts.backoff ?? DEFAULT_BACKOFF, opts.log, "QQ gateway connection lost; reconnecting");
  }

  /** Connects; rejects only when QQ refuses the app's credentials. An outage resolves and keeps retrying. */
  async start(): Promise<void> {
    this.stopped = false;
    try {
      await this.opts.api.accessToken();
    } catch (err) {
      if (!(err instanceof PlatformApiError) || err.httpStatus === null) {
        this.failed(err);
        return;
      }
      this.stopped = true;
      throw new Error(`QQ refused the app credentials: ${err.message}`, { cause: err });
    }
    await this.connect().catch((err: unknown) => this.failed(err));
  }

  stop(): void {
    this.stopped = true;
    this.reconnect.cancel();
    clearInterval(this.heartbeat);
    this.socket?.close(1000);
    this.socket = undefined;
    this.state = { connected: false, detail: "stopped" };
  }

  status(): ChannelStatus {
    return this.state;
  }

  private async connect(): Promise<void> {
    const { url } = z.object({ url: z.string().min(1) }).parse(await this.opts.api.call("GET", "/gateway"));
    if (this.stopped) return;
    const socket = new WebSocket(url);
    this.socket = socket;
    socket.on("message", (data) => void this.onPayload(socket, String(data)));
    socket.on("error", (err) => this.opts.log.warn({ err }, "QQ gateway connection error"));
    socket.on("close", (code) => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      clearInterval(this.heartbeat);
      if (code === 4004) this.sessionId = undefined;
      this.failed(new Error(`the gateway connection closed (code ${code})`));
    });
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
  }

  private async onPayload(socket: WebSocket, raw: string): Promise<void> {
    const { log } = this.opts;
    let payload: z.output<typeof payloadSchema>;
    try {
      payload = payloadSchema.parse(JSON.parse(raw));
    } catch {
      log.warn({ bytes: raw.length }, "ignored a QQ gateway payload that is not the documented JSON");
      return;
    }
    if (typeof payload.s === "number") this.seq = payload.s;
    switch (payload.op) {
      case 10:
        return this.hello(socket, payload.d);
      case 11:
        return;
      case 7:
        log.info("QQ asked the gateway connection to reconnect; resuming");
        socket.close(4000);
        return;
      case 9:
        log.info("QQ invalidated the gateway session; identifying anew");
        this.sessionId = undefined;
        this.seq = null;
        socket.close(4000);
        return;
      case 0:
        return this.dispatch(payload);
    }
  }

  private async hello(socket: WebSocket, data: unknown): Promise<void> {
    const interval = z.object({ heartbeat_interval: z.number().positive() }).safeParse(data);
    clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => socket.send(JSON.stringify({ op: 1, d: this.seq })), interval.success ? interval.data.heartbeat_interval : 41_250);
    const token = `QQBot ${await this.opts.api.accessToken()}`;
    if (this.sessionId !== undefined) {
      socket.send(JSON.stringify({ op: 6, d: { token, session_id: this.sessionId, seq: this.seq ?? 0 } }));
    } else {
      socket.send(JSON.stringify({ op: 2, d: { token, intents: PUBLIC_INTENTS, shard: [0, 1], properties: { $os: process.platform, $browser: "switchboard", $device: "switchboard" } } }));
    }
  }

  private async dispatch(payload: z.output<typeof payloadSchema>): Promise<void> {
    const type = payload.t ?? "";
    if (type === "READY") {
      const ready = z.object({ session_id: z.string() }).safeParse(payload.d);
      if (ready.success) this.sessionId = ready.data.session_id;
      this.sessions.identified += 1;
      this.connected();
      return;
    }
    if (type === "RESUMED") {
      this.sessions.resumed += 1;
      this.connected();
      return;
    }
    await this.opts.onDispatch({ type, id: payload.id ?? undefined, data: payload.d }).catch((err: unknown) => {
      this.opts.log.error({ err, type }, "could not take a QQ event");
    });
  }

  private connected(): void {
    this.reconnect.reset();
    this.state = { connected: true, detail: `gateway session ${this.sessionId ?? "?"}` };
  }

  private failed(err: unknown): void {
    if (this.stopped) return;
    this.state = { connected: false, detail: `reconnecting: ${(err as Error).message}` };
    this.reconnect.schedule(err, () => this.connect());
  }

}
