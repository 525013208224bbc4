/**
 * Socket Mode with @slack/socket-mode: the WebSocket address comes from apps.connections.open on the configured
 * API URL, Slack says hello, then sends envelopes, each acknowledged within 3 s by its envelope id (also those the
 * channel ignores, or Slack sends them again). The client's own reconnecting is off: a failed reconnect there ends
 * in an unhandled rejection, so lost connections go back to the channel's ConnectLoop.
 */
import { SocketModeClient } from "@slack/socket-mode";
import type { Logger } from "../../infra/log.js";
import { slackLogger, webClientOptions } from "./api.js";

export type EnvelopeKind = "events_api" | "interactive" | "slash_commands";

export interface Envelope {
  kind: EnvelopeKind;
  body: unknown;
  /** Slack's retry count for a redelivery (0 the first time). */
  retryNum: number;
  ack: () => Promise<void>;
}

export interface SocketOptions {
  appToken: string;
  apiUrl: string;
  log: Logger;
  /** Handles one envelope; it acknowledges it (ack) itself, once it may. */
  onEnvelope: (envelope: Envelope) => Promise<void>;
  /** The connection was lost (not by close()). */
  onLost: () => void;
}

const KINDS = new Set<string>(["events_api", "interactive", "slash_commands"]);

interface SlackEventArgs {
  ack: () => Promise<void>;
  type: string;
  body: unknown;
  retry_num?: number;
}

export class SocketConnection {
  private client: SocketModeClient | undefined;
  private connected = false;

  constructor(private readonly opts: SocketOptions) {}

  isConnected(): boolean {
    return this.connected;
  }

  /** Opens a new connection and waits for Slack's hello. */
  async open(): Promise<void> {
    await this.close();
    const { log } = this.opts;
    const client = new SocketModeClient({
      appToken: this.opts.appToken,
      autoReconnectEnabled: false,
      logger: slackLogger(log),
      clientOptions: { slackApiUrl: this.opts.apiUrl, ...webClientOptions(log) },
    });
    client.on("slack_event", (args: SlackEventArgs) => void this.dispatch(args));
    client.on("connected", () => (this.connected = true));
    client.on("disconnected", () => {
      this.connected = false;
      if (this.client !== client) return;
      this.client = undefined;
      log.warn("the Slack Socket Mode connection closed; reconnecting");
      this.opts.onLost();
    });
    this.client = client;
    try {
      await client.start();
    } catch (err) {
      if (this.client === client) this.client = undefined;
      throw err;
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.connected = false;
    await client?.disconnect();
  }

  private async dispatch({ ack, type, body, retry_num }: SlackEventArgs): Promise<void> {
    const { log } = this.opts;
    const acknowledge = () => ack().catch((err: unknown) => log.warn({ err, type }, "could not acknowledge a Slack envelope; Slack will send it again"));
    if (!KINDS.has(type)) {
      await acknowledge();
      return;
    }
    await this.opts.onEnvelope({ kind: type as EnvelopeKind, body, retryNum: retry_num ?? 0, ack: acknowledge }).catch(async (err: unknown) => {
      log.error({ err, type }, "handling a Slack envelope failed");
    });
  }
}
