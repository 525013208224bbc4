/** The open WebSockets of each web chat: every tab showing a chat gets every new line of it. */
import { WebSocket } from "ws";
import type { ServerFrame } from "./schema.js";

export class ChatHub {
  private readonly chats = new Map<string, Set<WebSocket>>();
  private readonly chatOf = new Map<WebSocket, string>();

  /** Binds a socket to a chat; a socket that said hello before moves to the new chat. */
  join(chatId: string, ws: WebSocket): void {
    this.leave(ws);
    let sockets = this.chats.get(chatId);
    if (!sockets) this.chats.set(chatId, (sockets = new Set()));
    sockets.add(ws);
    this.chatOf.set(ws, chatId);
  }

  leave(ws: WebSocket): void {
    const chatId = this.chatOf.get(ws);
    if (chatId === undefined) return;
    this.chatOf.delete(ws);
    const sockets = this.chats.get(chatId);
    sockets?.delete(ws);
    if (sockets?.size === 0) this.chats.delete(chatId);
  }

  broadcast(chatId: string, frame: ServerFrame): void {
    const sockets = this.chats.get(chatId);
    if (!sockets) return;
    const data = JSON.stringify(frame);
    for (const ws of sockets) if (ws.readyState === WebSocket.OPEN) ws.send(data);
  }

  closeAll(code: number, reason: string): void {
    for (const ws of this.chatOf.keys()) ws.close(code, reason);
  }
}

export function sendFrame(ws: WebSocket, frame: ServerFrame): void {
  if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame));
}
