/**
 * A ToolContext for handler tests: a silent logger, a fresh signal, and a unique workspace path under the temp
 * directory. Nothing is created on disk, so tools must create the workspace on demand; a test that lets a tool
 * write removes `dirname(ctx.workspaceDir)` when done.
 */
import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import type { ToolContext } from "../../src/core/tools.js";

export function makeToolContext(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    sessionKey: "web:chat-1",
    channel: "web",
    chatId: "chat-1",
    chatType: "direct",
    senderId: "user-1",
    workspaceDir: join(tmpdir(), `switchboard-tool-${randomUUID()}`, "workspace"),
    signal: new AbortController().signal,
    log: pino({ level: "silent" }),
    traceId: "trace-test",
    disclosedTools: new Set<string>(),
    ...overrides,
  };
}
