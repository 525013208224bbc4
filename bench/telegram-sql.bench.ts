/**
 * What Telegram messages cost the SQLite store, in this process: the whole gateway (test/e2e/harness.ts, SQLite in
 * a temporary data dir) long polling the fake Bot API and answering from the fake model, messages from many users
 * pushed in waves. Counts every statement better-sqlite3 runs from the first message to the gateway's stop (which
 * writes what waits in memory) and times each: statements and SQLite microseconds per message, and the statements
 * that cost most. Not CPU of the whole path: `npm run bench telegram` measures that.
 */
import { startTestGateway } from "../test/e2e/harness.js";
import { startFakeTelegram } from "../test/fakes/telegram/server.js";
import { directChat, text, type TgUser } from "../test/fakes/telegram/updates.js";
import { eventually } from "../test/helpers/wait.js";
import { recordSql } from "../test/helpers/sql-statements.js";
import type { BenchResult } from "./types.js";

const USERS = 200;
const WARMUP = 100;
const MESSAGES = Number(process.env.BENCH_SQL_MESSAGES ?? 1_000);
const WAVE = 50;

export async function run(): Promise<BenchResult> {
  const tg = await startFakeTelegram();
  const users: TgUser[] = Array.from({ length: USERS }, (_, i) => ({ id: 5_000_000 + i, is_bot: false, first_name: `U${i}` }));
  const t = await startTestGateway({
    channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1 } },
    // As the Telegram bench: everyone may write, nobody is rate-limited.
    access: { dmPolicy: "open", limits: { perUser: { messages: 1_000_000, windowSeconds: 60 }, perChat: { messages: 1_000_000, windowSeconds: 60 } } },
  });
  t.fake.respondWith(() => ({ text: "Here is a short answer to your question.", usage: { input: 1_200, output: 300 } }));
  let closed = false;
  let pushed = 0;
  const send = async (count: number) => {
    for (let start = 0; start < count; start += WAVE) {
      const wave = Math.min(WAVE, count - start);
      const before = tg.sent.length;
      for (let i = 0; i < wave; i++, pushed++) tg.addUpdate(text(directChat(users[pushed % USERS]!), `question ${pushed}`, { from: users[pushed % USERS]! }));
      await eventually(() => tg.sent.length >= before + wave, `${wave} replies`, 60_000);
    }
  };
  try {
    await send(WARMUP);
    const probe = recordSql();
    await send(MESSAGES);
    closed = true;
    await t.close();
    const total = [...probe.bySql.values()].reduce((sum, s) => sum + s.micros, 0);
    const rows: BenchResult["rows"] = [
      { statement: "all", "per message": (probe.sources.length / MESSAGES).toFixed(2), "µs per statement": (total / probe.sources.length).toFixed(1), "µs per message": (total / MESSAGES).toFixed(0) },
    ];
    const costly = [...probe.bySql].sort((a, b) => b[1].micros - a[1].micros).slice(0, 10);
    for (const [sql, { count, micros }] of costly) {
      rows.push({ statement: sql.replace(/\s+/g, " ").slice(0, 70), "per message": (count / MESSAGES).toFixed(2), "µs per statement": (micros / count).toFixed(1), "µs per message": (micros / MESSAGES).toFixed(1) });
    }
    return {
      name: "telegram-sql",
      workload: `whole gateway in-process on SQLite, ${MESSAGES} Telegram messages (after ${WARMUP}) from ${USERS} users in waves of ${WAVE}, fake Bot API and model; statements from the first message through the stop`,
      rows,
    };
  } finally {
    if (!closed) await t.close();
    await tg.close();
  }
}
