/**
 * The floor of bench/telegram.bench.ts: a plain grammY bot, long polling, that answers each text with one raw
 * `fetch` to the OpenAI-compatible model. Run under plain `node` as bench/telegram-baseline.mjs (transpiled from
 * this file at the start of each run, gitignored), configured by the same environment variables as Switchboard.
 */
import { Bot } from "grammy";

const token = process.env.TELEGRAM_BOT_TOKEN ?? "";
const apiRoot = process.env.TELEGRAM_API_ROOT;
const modelUrl = `${process.env.LLM_BASE_URL ?? ""}/chat/completions`;
const headers = { "content-type": "application/json", authorization: `Bearer ${process.env.LLM_API_KEY ?? ""}` };

const bot = new Bot(token, apiRoot ? { client: { apiRoot } } : {});

async function answer(chatId: number, messageId: number, text: string): Promise<void> {
  const response = await fetch(modelUrl, {
    method: "POST",
    headers,
    body: JSON.stringify({ model: process.env.LLM_MODEL, messages: [{ role: "user", content: text }] }),
  });
  if (!response.ok) throw new Error(`the model answered HTTP ${response.status}`);
  const completion = (await response.json()) as { choices: Array<{ message: { content: string } }> };
  const reply = completion.choices[0]?.message.content ?? "";
  await twice(() => bot.api.sendMessage(chatId, reply, { reply_parameters: { message_id: messageId } }));
}

/**
 * A second try after a failed connection, as Switchboard's outbound service makes: under a burst on a loaded machine
 * the fake's connections are sometimes reset, and a baseline that lost those replies would be timed at the deadline.
 */
async function twice<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch {
    await new Promise((resolve) => setTimeout(resolve, 50));
    return call();
  }
}

// Not awaited: messages are answered concurrently, as the gateway answers different chats concurrently.
bot.on("message:text", (ctx) => {
  answer(ctx.chat.id, ctx.message.message_id, ctx.message.text).catch((err: unknown) => {
    process.stderr.write(`grammY baseline: no reply to message ${ctx.message.message_id}: ${String(err)}\n`);
  });
});

process.once("SIGTERM", () => void bot.stop().finally(() => process.exit(0)));
await bot.start();
