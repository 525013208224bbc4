/**
 * Streamed replies on every platform: the whole gateway against each platform's fake and a fake model streaming
 * 20 tokens a second (4-character tokens, 50 ms apart) of a 1,000-character Markdown answer. Measures the time
 * from the model's first token to the first text the user can see (a draft, a preview message, a streaming card,
 * a WebSocket delta), and the platform calls the reply cost; each platform runs once streaming and once with
 * streaming off, the baseline. The goal: first text within 1.5 s of the model's first token.
 */
import { setTimeout as delay } from "node:timers/promises";
import type { ConfigInput } from "../src/config.js";
import { openChat, startTestGateway, type TestGateway } from "../test/e2e/harness.js";
import { messagePayload, startFakeDiscord, user } from "../test/fakes/discord/index.js";
import { textEvent } from "../test/fakes/feishu/events.js";
import { startFakeFeishu } from "../test/fakes/feishu/index.js";
import { startFakeTelegram } from "../test/fakes/telegram/server.js";
import { alice, directChat, groupChat, text } from "../test/fakes/telegram/updates.js";
import { longMarkdown } from "../test/helpers/long-markdown.js";
import type { BenchResult } from "./types.js";

const ANSWER = longMarkdown(1_000);
const TOKEN_CHARS = 4;
const TOKEN_GAP_MS = 50;
const GOAL_MS = 1_500;
const POLL_MS = 5;
const DEADLINE_MS = 60_000;

/** One platform with the gateway in front of it, ready for one message. */
interface Rig {
  gw: TestGateway;
  /** Delivers the user's message. */
  send(): Promise<void>;
  /** Some text of the answer is visible to the user. */
  visible(): boolean;
  /** The reply is out and the turn is over (its acknowledgement taken back). */
  done(): boolean;
  /** The platform calls the reply made (sends, edits, drafts, card updates, deletes; not the acknowledgement). */
  calls(): number;
  close(): Promise<void>;
}

interface Platform {
  name: string;
  /** The streaming setting measured; the baseline runs with "off". */
  streaming: string;
  start(on: boolean): Promise<Rig>;
}

/** The answer takes longer than the harness's usual model deadline. */
const LLM = { timeoutMs: DEADLINE_MS };

const gateway = (channels: ConfigInput["channels"], access: ConfigInput["access"] = { dmPolicy: "open" }) =>
  startTestGateway({ channels: { web: { enabled: false }, ...channels }, access, llm: LLM });

const REPLY_METHODS = new Set(["sendMessage", "sendMessageDraft", "editMessageText", "deleteMessage"]);

function telegram(chat: "direct" | "group"): Platform {
  return {
    name: chat === "direct" ? "Telegram private chat" : "Telegram group",
    streaming: chat === "direct" ? "draft" : "preview",
    async start(on) {
      const streaming = !on ? "off" : chat === "direct" ? "draft" : "preview";
      const tg = await startFakeTelegram();
      const gw = await gateway(
        { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1, streaming } },
        { allowFrom: [`telegram:${alice.id}`], groups: [{ chat: `telegram:${groupChat.id}` }] },
      );
      const chatId = chat === "direct" ? String(alice.id) : String(groupChat.id);
      return {
        gw,
        send: async () => void tg.addUpdate(chat === "direct" ? text(directChat(), "tell me") : text(groupChat, "@switchboard_test_bot tell me")),
        visible: () => tg.drafts.length > 0 || tg.sent.some((s) => s.chatId === chatId),
        done: () => tg.callsOf("setMessageReaction").length >= 2,
        calls: () => tg.calls.filter((c) => REPLY_METHODS.has(c.method)).length,
        close: async () => {
          await gw.close();
          await tg.close();
        },
      };
    },
  };
}

const discord: Platform = {
  name: "Discord",
  streaming: "preview",
  async start(on) {
    const streaming = on ? "preview" : "off";
    const fake = await startFakeDiscord();
    const gw = await gateway({ discord: { token: fake.token, apiUrl: fake.apiUrl, streaming } }, { dmPolicy: "open", groups: [{ guild: `discord:${fake.world.guild.id}` }] });
    const isReply = (r: { method: string; path: string }) => r.method !== "GET" && /\/channels\/\d+\/messages/.test(r.path) && !r.path.includes("/reactions/");
    return {
      gw,
      send: async () => {
        const { general, guild } = fake.world;
        const payload = messagePayload({ channelId: general.id, guildId: guild.id, author: user("alice"), content: `<@${fake.bot.id}> tell me`, mentions: [fake.bot] });
        fake.dispatch("MESSAGE_CREATE", payload);
      },
      visible: () => fake.messages.length > 0,
      done: () => fake.requests.filter((r) => r.path.includes("/reactions/")).length >= 2,
      calls: () => fake.requests.filter(isReply).length,
      close: async () => {
        await gw.close();
        await fake.close();
      },
    };
  },
};

const feishu: Platform = {
  name: "Feishu",
  streaming: "card",
  async start(on) {
    const streaming = on ? "card" : "off";
    const fs = await startFakeFeishu();
    const gw = await gateway({ feishu: { appId: fs.appId, appSecret: fs.appSecret, domain: fs.url, streaming } });
    const event = textEvent("tell me", { chatId: "oc_bench" });
    const reactions = () => fs.api.messageEdits.reactions.get(event.event.message.message_id);
    return {
      gw,
      send: async () => void (await fs.pushSocket(event)),
      visible: () => fs.api.sent.length > 0,
      done: () => reactions()?.length === 0,
      calls: () => {
        const { sent, cardkit, messageEdits } = fs.api;
        return sent.length + cardkit.cards.size + cardkit.operations.length + messageEdits.edits.length + sent.filter((s) => s.deleted).length;
      },
      close: async () => {
        await gw.close();
        await fs.close();
      },
    };
  },
};

const webchat: Platform = {
  name: "WebChat",
  streaming: "preview",
  async start(on) {
    const streaming = on ? "preview" : "off";
    const gw = await startTestGateway({ channels: { web: { streaming } }, llm: LLM });
    const chat = await openChat(gw.url, "bench-chat");
    const frames = () => chat.frames.filter((f) => f.type === "draft" || f.type === "draft_end" || (f.type === "message" && f.role === "bot"));
    return {
      gw,
      send: async () => chat.send({ type: "message", text: "tell me" }),
      visible: () => frames().length > 0,
      done: () => chat.frames.some((f) => f.type === "message" && f.role === "bot"),
      calls: () => frames().length,
      close: async () => {
        chat.close();
        await gw.close();
      },
    };
  },
};

interface Measure {
  firstTextMs: number;
  calls: number;
}

async function measure(platform: Platform, on: boolean): Promise<Measure> {
  const rig = await platform.start(on);
  try {
    let requestAt = 0;
    rig.gw.fake.respondWith(() => {
      requestAt = Date.now();
      return { text: ANSWER, streaming: { pieceSize: TOKEN_CHARS, delayMs: TOKEN_GAP_MS } };
    });
    await rig.send();
    const visibleAt = await until(rig.visible, `${platform.name}: the first text`);
    await until(rig.done, `${platform.name}: the whole reply`);
    // The role chunk opens the stream; the first token follows one gap later.
    return { firstTextMs: visibleAt - (requestAt + TOKEN_GAP_MS), calls: rig.calls() };
  } finally {
    await rig.close();
  }
}

async function until(probe: () => boolean, what: string): Promise<number> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`stream bench: no ${what} within ${DEADLINE_MS} ms`);
    await delay(POLL_MS);
  }
  return Date.now();
}

export async function run(): Promise<BenchResult> {
  const platforms = [telegram("direct"), telegram("group"), discord, feishu, webchat];
  const rows: BenchResult["rows"] = [];
  for (const platform of platforms) {
    const streamed = await measure(platform, true);
    const plain = await measure(platform, false);
    rows.push({
      platform: platform.name,
      streaming: platform.streaming,
      "first text after first token": `${streamed.firstTextMs} ms`,
      "same, streaming off": `${plain.firstTextMs} ms`,
      ratio: `${(streamed.firstTextMs / plain.firstTextMs).toFixed(2)}x`,
      goal: `<= ${GOAL_MS} ms ${streamed.firstTextMs <= GOAL_MS ? "met" : "MISSED"}`,
      "platform calls": streamed.calls,
      "calls, streaming off": plain.calls,
    });
  }
  return {
    name: "stream",
    workload:
      `one ${ANSWER.length}-character Markdown answer per run, fake model at ${1000 / TOKEN_GAP_MS} tokens/s of ${TOKEN_CHARS} characters, ` +
      `whole gateway against each platform's fake; goal: first text <= ${GOAL_MS} ms after the model's first token; ` +
      `calls exclude the 2 acknowledgement reactions (WebChat: WebSocket frames)`,
    rows,
  };
}
