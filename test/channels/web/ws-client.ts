/** A `ws` client that buffers frames, so a test can await the next frame it expects. */
import WebSocket from "ws";

export type Frame = { type: string } & Record<string, unknown>;

export interface ConnectOptions {
  path?: string;
  protocols?: string[];
  headers?: Record<string, string>;
}

const WAIT_MS = 5_000;

export class TestSocket {
  private readonly frames: Frame[] = [];
  private readonly waiters = new Set<() => void>();
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => {
      this.frames.push(JSON.parse(String(data)) as Frame);
      for (const wake of this.waiters) wake();
    });
    this.closed = new Promise((resolve) => ws.on("close", (code, reason) => resolve({ code, reason: String(reason) })));
  }

  static open(baseUrl: string, opts: ConnectOptions = {}): Promise<TestSocket> {
    const ws = connect(baseUrl, opts);
    return new Promise((resolve, reject) => {
      ws.once("open", () => resolve(new TestSocket(ws)));
      ws.once("error", reject);
    });
  }

  /** Opens a socket and says hello; resolves with the history frame. */
  static async hello(baseUrl: string, chatId: string, userId = "u1"): Promise<{ socket: TestSocket; history: Frame }> {
    const socket = await TestSocket.open(baseUrl);
    socket.send({ type: "hello", chatId, userId });
    return { socket, history: await socket.next("history") };
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  /** The first buffered or future frame of `type` (and matching `match`), removed from the buffer. */
  async next(type: string, match: (f: Frame) => boolean = () => true): Promise<Frame> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const index = this.frames.findIndex((f) => f.type === type && match(f));
      if (index >= 0) return this.frames.splice(index, 1)[0]!;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${type} frame within ${WAIT_MS} ms; got ${JSON.stringify(this.frames)}`);
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.waiters.add(wake);
      });
    }
  }

  /** Frames received and not yet taken by next(). */
  buffered(): readonly Frame[] {
    return this.frames;
  }

  close(): Promise<{ code: number; reason: string }> {
    this.ws.close();
    return this.closed;
  }
}

/** The HTTP status of a refused upgrade. */
export function refusedStatus(baseUrl: string, opts: ConnectOptions = {}): Promise<number> {
  const ws = connect(baseUrl, opts);
  return new Promise((resolve, reject) => {
    ws.once("unexpected-response", (req, res) => {
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    ws.on("error", reject);
    ws.once("open", () => reject(new Error("the upgrade was accepted")));
  });
}

function connect(baseUrl: string, opts: ConnectOptions): WebSocket {
  const url = `${baseUrl.replace(/^http/, "ws")}${opts.path ?? "/ws"}`;
  return new WebSocket(url, opts.protocols ?? [], { headers: opts.headers ?? {} });
}
