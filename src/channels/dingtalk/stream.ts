/**
 * DingTalk's Stream mode, by its documented protocol (the official SDK hard-codes its host): `POST
 * {apiUrl}/v1.0/gateway/connections/open` with `Accept: application/json` (DingTalk answers XML without it) trades
 * the app's credentials for an endpoint and a single-use ticket; the WebSocket `endpoint?ticket=` then carries
 * SYSTEM frames (`ping`, answered with code 200 and the same data; `disconnect`, after which a new ticket is
 * needed) and CALLBACK frames, each acknowledged by its messageId. A CALLBACK is acknowledged only once the
 * receiver has recorded it; unacknowledged, DingTalk pushes it again. A drop or a disconnect reconnects with
 * exponential backoff.
 */
import WebSocket from "ws";
import { z } from "zod";
import type { ChannelStatus } from "../../core/types.js";
import type { Logger } from "../../infra/log.js";
import { jsonObjectOf, PlatformApiError, platformFetch } from "../platform-call.js";
import { DEFAULT_BACKOFF, Reconnector, type Backoff } from "../reconnect.js";
import { DingtalkApiError } from "./api.js";

export const ROBOT_TOPIC = "/v1.0/im/bot/messages/get";

const frameSchema = z.object({
  type: z.enum(["SYSTEM", "EVENT", "CALLBACK"]),
  headers: z.looseObject({ messageId: z.string().optional(), topic: z.string().optional() }),
  data: z.string().optional(),
});
export type StreamFrame = z.output<typeof frameSchema>;

const openSchema = z.object({ endpoint: z.string().min(1), ticket: z.string().min(1) });

export interface StreamOptions {
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  topics: string[];
  log: Logger;
  /** Resolves once the callback's data is recorded (then it is acknowledged); rejects to leave it unacknowledged. */
  onCallback(frame: StreamFrame): Promise<void>;
  backoff?: Backoff;
}

/** A connection that lasted this long resets the backoff. */
const STABLE_MS = 60_000;

export class DingtalkStream {
  private socket: WebSocket | undefined;
  private stopped = true;
  private readonly reconnect: Reconnector;
  private state: ChannelStatus = { connected: false, detail: "not started" };
  /** Connections made so far (a test reads it to wait for a reconnect). */
  connections = 0;

  constructor(private readonly opts: StreamOptions) {
    this.reconnect = new Reconnector(opts.backoff ?? DEFAULT_BACKOFF, opts.log, "DingTalk Stream connection lost; reconnecting");
  }

  /** Connects; rejects only when DingTalk refuses the credentials. An outage resolves and keeps retrying. */
  async start(): Promise<void> {
    this.stopped = false;
    try {
      await this.connect();
    } catch (err) {
      if (err instanceof PlatformApiError && err.httpStatus !== null && [400, 401, 403].includes(err.httpStatus)) {
        this.stopped = true;
        throw new Error(`DingTalk refused to open a Stream connection with the configured client id and secret: ${err.message}`, { cause: err });
      }
      this.failed(err);
    }
  }

  stop(): void {
    this.stopped = true;
    this.reconnect.cancel();
    this.socket?.close(1000);
    this.socket = undefined;
    this.state = { connected: false, detail: "stopped" };
  }

  status(): ChannelStatus {
    return this.state;
  }

  private async connect(): Promise<void> {
    const { endpoint, ticket } = await openConnection(this.opts);
    if (this.stopped) return;
    const url = `${endpoint}${endpoint.includes("?") ? "&" : "?"}ticket=${encodeURIComponent(ticket)}`;
    const socket = new WebSocket(url);
    this.socket = socket;
    let openedAt = 0;
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => {
        openedAt = Date.now();
        this.connections += 1;
        this.state = { connected: true, detail: "Stream connection open" };
        resolve();
      });
      socket.once("error", reject);
    });
    socket.on("error", (err) => this.opts.log.warn({ err }, "DingTalk Stream connection error"));
    socket.on("message", (data) => this.onFrame(socket, String(data)));
    socket.on("close", (code) => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      if (Date.now() - openedAt > STABLE_MS) this.reconnect.reset();
      this.failed(new Error(`the Stream connection closed (code ${code})`));
    });
  }

  private onFrame(socket: WebSocket, raw: string): void {
    const { log } = this.opts;
    let frame: StreamFrame;
    try {
      frame = frameSchema.parse(JSON.parse(raw));
    } catch {
      log.warn({ bytes: raw.length }, "ignored a DingTalk Stream frame that is not the documented JSON");
      return;
    }
    const topic = frame.headers.topic;
    if (frame.type === "SYSTEM") {
      if (topic === "ping") socket.send(JSON.stringify({ code: 200, headers: frame.headers, message: "OK", data: frame.data }));
      if (topic === "disconnect") {
        log.info("DingTalk asked the Stream connection to reconnect");
        this.state = { connected: false, detail: "reconnecting after DingTalk's disconnect" };
        socket.close(1000);
      }
      return;
    }
    const messageId = frame.headers.messageId;
    if (!messageId) return;
    const ack = () => socket.send(JSON.stringify({ code: 200, headers: { contentType: "application/json", messageId }, message: "OK", data: JSON.stringify({ response: null }) }));
    if (frame.type === "EVENT" || !topic || !this.opts.topics.includes(topic)) {
      ack();
      return;
    }
    this.opts.onCallback(frame).then(ack, (err: unknown) => {
      // Unacknowledged: DingTalk pushes it again.
      log.error({ err, messageId }, "could not record a DingTalk callback; left unacknowledged");
    });
  }

  private failed(err: unknown): void {
    if (this.stopped) return;
    this.state = { connected: false, detail: `reconnecting: ${(err as Error).message}` };
    this.reconnect.schedule(err, () => this.connect());
  }

}

export interface OpenRequest {
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  topics: string[];
}

/** Trades the app's credentials for a Stream endpoint and a single-use ticket. */
export async function openConnection(request: OpenRequest): Promise<z.output<typeof openSchema>> {
  const { apiUrl, clientId, clientSecret, topics } = request;
  const what = "POST /v1.0/gateway/connections/open";
  const init = {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ clientId, clientSecret, subscriptions: topics.map((topic) => ({ type: "CALLBACK", topic })), ua: "switchboard" }),
  };
  const response = await platformFetch(`${apiUrl.replace(/\/+$/, "")}/v1.0/gateway/connections/open`, init, what, 15_000);
  const body = await jsonObjectOf(response);
  if (!response.ok) {
    const code = typeof body.code === "string" ? body.code : null;
    throw new DingtalkApiError(`${what}: HTTP ${response.status}${code ? `, DingTalk error ${code}: ${String(body.message ?? "")}` : ""}`, code, response.status);
  }
  const parsed = openSchema.safeParse(body);
  if (!parsed.success) throw new DingtalkApiError(`${what}: the answer has no endpoint and ticket`, null, response.status);
  return parsed.data;
}
