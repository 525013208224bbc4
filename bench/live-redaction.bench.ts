/**
 * What keeping secrets out of a live reply costs per answer: the watched turn redacts the text shown after every
 * delta the model streams. Redacting the whole text each time (as the agent did before GrowingRedaction) against
 * the growing view, for answers of a few lengths, with the secret forms of three configured secrets.
 */
import { GrowingRedaction } from "../src/agent/growing-redaction.js";
import { secretForms } from "../src/infra/config/secrets.js";
import { wholeTextView } from "../test/helpers/whole-text-redaction.js";
import type { BenchResult } from "./types.js";

const DELTA_CHARS = 4;
const ANSWERS = 200;
const SECRETS = [
  ...new Set(["sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD", "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw", "redis-password-xyz"].flatMap(secretForms)),
].sort((a, b) => b.length - a.length);

export function run(): Promise<BenchResult> {
  const rows = [200, 2_000, 8_000].map((length) => {
    const deltas = answerDeltas(length);
    const whole = cpuPerAnswer(deltas, () => {
      let text = "";
      return (delta) => {
        text += delta;
        return wholeTextView(text, SECRETS);
      };
    });
    const growing = cpuPerAnswer(deltas, () => {
      const view = new GrowingRedaction(SECRETS);
      return (delta) => view.append(delta);
    });
    return {
      answer: `${length} chars, ${deltas.length} deltas`,
      "whole text each delta": `${whole.toFixed(3)} ms`,
      "GrowingRedaction": `${growing.toFixed(3)} ms`,
      ratio: `${(growing / whole).toFixed(2)}x`,
    };
  });
  return Promise.resolve({
    name: "live-redaction",
    workload: `${ANSWERS} answers per way and length, Markdown-like text in ${DELTA_CHARS}-character deltas, ${SECRETS.length} secret forms; CPU per answer`,
    rows,
  });
}

function answerDeltas(length: number): string[] {
  const words = ["The", "answer", "is", "here:", "\n\n-", "**bold**", "code", "`x`", "and", "more."];
  let text = "";
  for (let i = 0; text.length < length; i++) text += `${words[i % words.length]} `;
  return Array.from({ length: Math.ceil(length / DELTA_CHARS) }, (_, i) => text.slice(i * DELTA_CHARS, (i + 1) * DELTA_CHARS));
}

function cpuPerAnswer(deltas: string[], start: () => (delta: string) => string): number {
  const answer = () => {
    const append = start();
    for (const delta of deltas) append(delta);
  };
  for (let i = 0; i < ANSWERS / 4; i++) answer();
  const started = process.cpuUsage();
  for (let i = 0; i < ANSWERS; i++) answer();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000 / ANSWERS;
}
