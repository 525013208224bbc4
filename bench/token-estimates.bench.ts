/**
 * Token estimates: what the tokenizer counts against the old length / 4 rule, and what estimating a session's
 * history costs per turn, when every message is new (a cold process) and when only the last one is.
 */
import type { ModelMessage } from "ai";
import { countTokens } from "../src/core/tokens.js";
import { estimateTokens } from "../src/sessions/history.js";
import type { BenchResult } from "./types.js";

const ENGLISH = "The gateway keeps each chat's history within its budget and summarizes older turns. ";
const CHINESE = "网关会把每个会话的历史控制在预算之内，并把较早的对话压缩成摘要。";
const MESSAGES = 200;

function history(count: number, salt: string): ModelMessage[] {
  return Array.from({ length: count }, (_, i): ModelMessage =>
    i % 2 === 0
      ? { role: "user", content: `${salt} ${i}: ${(i % 4 === 0 ? CHINESE : ENGLISH).repeat(6)}` }
      : { role: "assistant", content: [{ type: "text", text: `${salt} ${i}: ${ENGLISH.repeat(10)}` }] },
  );
}

function cpuMs(fn: () => unknown): number {
  const started = process.cpuUsage();
  fn();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

export async function run(): Promise<BenchResult> {
  const compare = (label: string, text: string) => ({
    measure: `${label}, ${text.length} chars`,
    value: `${countTokens(text)} tokens (length / 4 said ${Math.ceil(text.length / 4)})`,
  });
  const messages = history(MESSAGES, "cold");
  const chars = JSON.stringify(messages).length;
  const cold = cpuMs(() => estimateTokens({ messages, summary: null }));
  const turns = 50;
  let warm = 0;
  for (let t = 0; t < turns; t++) {
    messages.push(...history(1, `turn ${t}`));
    warm += cpuMs(() => estimateTokens({ messages, summary: null }));
  }
  return {
    name: "token estimates",
    workload: `gpt-tokenizer cl100k_base; a ${MESSAGES}-message session (${chars} chars of JSON, 1 in 4 Chinese) plus ${turns} turns; CPU time`,
    rows: [
      compare("English", ENGLISH.repeat(20)),
      compare("Chinese", CHINESE.repeat(20)),
      { measure: `estimate, ${MESSAGES} new messages`, value: `${cold.toFixed(1)} ms` },
      { measure: "estimate per turn, one new message", value: `${(warm / turns).toFixed(2)} ms` },
    ],
  };
}
