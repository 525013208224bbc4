/**
 * The model's side of a delivery, the same on every platform: learn the tools, write a report into the
 * workspace, deliver it together with a missing file and one too large for any platform, then answer.
 */
import { mkdir, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { workspaceDirOf } from "../../src/core/session-key.js";
import type { Receipt } from "../../src/media/receipts.js";
import type { FakeOpenAI } from "../fakes/openai-server.js";

export const REPORT = "numbers for the chat";
export const FINAL_ANSWER = "I sent report.txt; the other two could not be sent.";
/** Over every platform's upload limit (Telegram 50 MB, Feishu 30 MB, Discord 10 MiB, WebChat 50 MiB). */
const HUGE_BYTES = 60 * 1024 * 1024;

export function scriptDelivery(fake: FakeOpenAI): void {
  fake.enqueue(
    {
      toolCalls: [
        { name: "get_tool_info", arguments: { tool_name: "write_file" } },
        { name: "get_tool_info", arguments: { tool_name: "deliver_artifacts" } },
      ],
    },
    { toolCalls: [{ name: "write_file", arguments: { path: "out/report.txt", content: REPORT } }] },
    {
      toolCalls: [
        {
          name: "deliver_artifacts",
          arguments: {
            artifacts: [
              { type: "file", path: "out/report.txt", caption: "Your report" },
              { type: "file", path: "out/missing.txt" },
              { type: "file", path: "huge.bin" },
            ],
          },
        },
      ],
    },
    { text: FINAL_ANSWER },
  );
}

/** Writes `content` as `name` into the session's workspace, as a file the model made earlier. */
export async function placeWorkspaceFile(dataDir: string, sessionKey: string, name: string, content: string | Buffer): Promise<string> {
  const workspace = workspaceDirOf(join(dataDir, "workspaces"), sessionKey);
  await mkdir(workspace, { recursive: true });
  await writeFile(join(workspace, name), content);
  return join(workspace, name);
}

/** Puts the too-large file into the session's workspace; sparse, so it costs no disk. */
export async function placeHugeFile(dataDir: string, sessionKey: string): Promise<void> {
  await truncate(await placeWorkspaceFile(dataDir, sessionKey, "huge.bin", ""), HUGE_BYTES);
}

/** The output of the last tool call the model saw (the request after it carries it). */
export function lastToolOutput<T>(fake: FakeOpenAI): T {
  return fake.lastToolResults().at(-1)!.content as T;
}

/** The receipts of the scripted delivery, after checking the statuses every platform must give. */
export function mixedBatchReceipts(fake: FakeOpenAI): Receipt[] {
  const { ok, receipts } = lastToolOutput<{ ok: boolean; receipts: Receipt[] }>(fake);
  expect(ok).toBe(false);
  expect(receipts.map((r) => [r.status, r.error_code])).toEqual([
    ["delivered", null],
    ["failed", "not_found"],
    ["failed", "too_large"],
  ]);
  return receipts;
}
