/**
 * Event delivery over the SDK's long connection (WSClient), which needs no public URL. The SDK fetches the
 * socket address, pings, and reconnects when the socket drops; this file reports those transitions, says plainly
 * when Feishu does not let the app use a long connection, and hands each event's envelope on.
 */
import * as lark from "@larksuiteoapi/node-sdk";
import type { Logger } from "../../infra/log.js";
import type { ChannelStatus } from "../../core/types.js";
import { sdkLogger } from "./sdk.js";

export interface SocketOptions {
  appId: string;
  appSecret: string;
  baseUrl: string;
  log: Logger;
  /** Takes one event; the SDK acknowledges the frame when this resolves, with the value as the callback's answer. */
  accept(payload: unknown): Promise<object | undefined>;
}

/** The SDK refuses to start a long connection for any other app id (and only logs it). */
const APP_ID_PATTERN = /^cli_[0-9a-fA-F]{16}$/;
/** A socket that answers no ping within this many seconds is a zombie: the SDK drops it and reconnects. */
const PING_TIMEOUT_SEC = 30;
const HANDSHAKE_TIMEOUT_MS = 15_000;

const LONG_CONNECTION_HELP =
  "The app must be a self-built app with 'Receive events through persistent connection' chosen under " +
  "Events & Callbacks > Mode of event subscription in the developer console; or set channels.feishu.mode to webhook.";

/** The WSClient hands every event frame to its dispatcher's invoke(); this one passes the raw envelope on. */
class EnvelopeDispatcher extends lark.EventDispatcher {
  constructor(
    private readonly onEnvelope: (payload: unknown) => Promise<object | undefined>,
    logger: lark.Logger,
  ) {
    super({ logger, loggerLevel: lark.LoggerLevel.info });
  }

  override async invoke(data: unknown): Promise<object | undefined> {
    return this.onEnvelope(data);
  }
}

export class FeishuSocket {
  private client: lark.WSClient | undefined;
  private failure: string | undefined;

  constructor(private readonly opts: SocketOptions) {}

  /** Starts connecting; the connection comes up (and comes back) in the background. */
  start(): void {
    const { appId, appSecret, baseUrl, log } = this.opts;
    if (!APP_ID_PATTERN.test(appId)) {
      const got = JSON.stringify(appId);
      throw new Error(`The Feishu long connection needs an app id of the form cli_ and 16 hex digits; got ${got}`);
    }
    this.failure = undefined;
    const logger = sdkLogger(log, "warn");
    this.client = new lark.WSClient({
      appId,
      appSecret,
      domain: baseUrl,
      logger,
      loggerLevel: lark.LoggerLevel.info,
      handshakeTimeoutMs: HANDSHAKE_TIMEOUT_MS,
      wsConfig: { pingTimeout: PING_TIMEOUT_SEC },
      onReady: () => log.info("Feishu long connection established"),
      onReconnecting: () => log.warn("Feishu long connection lost; reconnecting"),
      onReconnected: () => log.info("Feishu long connection re-established"),
      onError: (err) => this.failed(err),
    });
    void this.client.start({ eventDispatcher: new EnvelopeDispatcher((payload) => this.opts.accept(payload), logger) });
  }

  stop(): void {
    this.client?.close({ force: true });
    this.client = undefined;
  }

  status(): ChannelStatus {
    if (!this.client) return { connected: false, detail: "not started" };
    const { state } = this.client.getConnectionStatus();
    if (state === "connected") return { connected: true, detail: "long connection" };
    return { connected: false, detail: this.failure ?? `long connection ${state}` };
  }

  /** The SDK gave up: Feishu refused the connection, or reconnecting failed as often as Feishu allows. */
  private failed(err: Error): void {
    const refusal = /code=(\d+), msg=(.*)$/.exec(err.message);
    if (refusal) {
      this.failure = `Feishu refused the long connection (code ${refusal[1]}: ${refusal[2]})`;
      this.opts.log.error({ code: Number(refusal[1]) }, `${this.failure}. ${LONG_CONNECTION_HELP}`);
    } else {
      this.failure = `the long connection failed: ${err.message}`;
      const advice = "restart the gateway to try again";
      this.opts.log.error({ err }, `Feishu long connection failed and will not be retried; ${advice}`);
    }
  }
}
