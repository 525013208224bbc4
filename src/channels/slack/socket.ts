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

/**
 * The SDK's client, with its message handler guarded: it reads `payload.event.type` of every events_api envelope
 * unchecked, and its rejection would go unhandled, which ends the process. A malformed envelope is logged instead,
 * and acknowledged, so Slack does not send it again.
 */
class GuardedSocketModeClient extends SocketModeClient {
  constructor(
    options: ConstructorParameters<typeof SocketModeClient>[0],
    private readonly onMalformed: (err: unknown) => void,
  ) {
    super(options);
  }

  protected override async onWebSocketMessage(data: Parameters<SocketModeClient["onWebSocketMessage"]>[0], isBinary: boolean): Promise<void> {
    await super.onWebSocketMessage(data, isBinary).catch(async (err: unknown) => {
      this.onMalformed(err);
      const id = envelopeIdOf(String(data));
      // send() is the SDK's own acknowledgement (what each envelope's ack() calls), private only in its types.
      const acknowledge = (this as unknown as { send(envelopeId: string): Promise<void> }).send.bind(this);
      if (id !== undefined) await acknowledge(id).catch(() => undefined);
    });
  }
}

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
    const client = new GuardedSocketModeClient(
      { appToken: this.opts.appToken, autoReconnectEnabled: false, logger: slackLogger(log), clientOptions: { slackApiUrl: this.opts.apiUrl, ...webClientOptions(log) } },
      (err) => log.warn({ err }, "malformed Slack Socket Mode message; skipped"),
    );
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

function envelopeIdOf(text: string): string | undefined {
  try {
    const id = (JSON.parse(text) as { envelope_id?: unknown }).envelope_id;
    return typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
}
