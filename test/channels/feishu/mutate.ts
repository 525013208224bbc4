/**
 * Seeded mutations of valid Feishu event envelopes, for fuzzing: keys dropped, values swapped for values of other
 * types, the `content` JSON string broken or reshaped, and (as text) bytes flipped or cut. The same seed gives the
 * same bodies, so a failure reproduces.
 */
import { messageEvent, textEvent, type Envelope } from "../../fakes/feishu/events.js";
import { FAKE_BOT_OPEN_ID } from "../../fakes/feishu/index.js";

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const JUNK: readonly unknown[] = [
  null,
  0,
  -1,
  1e308,
  "",
  "NaN",
  "@_user_1 @_all @_user_99",
  "x".repeat(20_000),
  "🙂".repeat(50),
  true,
  [],
  [[{ tag: "img" }]],
  {},
  { tag: "at", user_id: "@_user_1" },
  "../../etc/passwd",
  { __proto__: { polluted: true } },
];

const CONTENTS: readonly string[] = [
  "{",
  "null",
  "[]",
  '"just a string"',
  '{"text": 5}',
  '{"title": "t", "content": [[{"tag": "a", "href": "javascript:x"}], null, [{"tag": "img", "image_key": "../k"}]]}',
  '{"zh_cn": {"content": "not an array"}}',
  '{"image_key": {"nested": true}}',
  '{"file_key": "k", "duration": "long"}',
  `{"text": "${"@_user_1 ".repeat(500)}"}`,
  JSON.stringify({ content: Array.from({ length: 200 }, () => [{ tag: "code_block", text: "```" }]) }),
];

function seeds(): Envelope[] {
  const mention = { key: "@_user_1", openId: FAKE_BOT_OPEN_ID, name: "Bot" };
  return [
    textEvent("hello @_user_1", { chatType: "group", mentions: [mention] }),
    messageEvent({
      messageType: "post",
      content: { title: "T", content: [[{ tag: "text", text: "x" }, { tag: "img", image_key: "img_1" }]] },
    }),
    messageEvent({ messageType: "image", content: { image_key: "img_2" } }),
    messageEvent({ messageType: "audio", content: { file_key: "file_1", duration: 2000 } }),
    messageEvent({ messageType: "file", content: { file_key: "file_2", file_name: "a.pdf" }, threadId: "omt_1", rootId: "om_r" }),
  ];
}

/** A mutated envelope (an object: it passes JSON parsing and reaches validation). */
export function mutatedEnvelope(random: Random): unknown {
  const envelope = structuredClone(pick(random, seeds())) as unknown as Record<string, unknown>;
  const rounds = 1 + Math.floor(random() * 3);
  for (let i = 0; i < rounds; i += 1) mutateOnce(envelope, random);
  return envelope;
}

/** A mutated request body as text: sometimes not JSON at all. */
export function mutatedBody(random: Random): string {
  const text = JSON.stringify(mutatedEnvelope(random));
  if (random() < 0.7) return text;
  const at = Math.floor(random() * text.length);
  if (random() < 0.5) return text.slice(0, at);
  return text.slice(0, at) + String.fromCharCode(Math.floor(random() * 0x2fff)) + text.slice(at + 1);
}

function mutateOnce(root: Record<string, unknown>, random: Random): void {
  const event = objectOrNull(root.event);
  const message = objectOrNull(event?.message);
  const roll = random();
  if (roll < 0.3 && message) {
    message.content = pick(random, CONTENTS);
    return;
  }
  if (roll < 0.4 && message) {
    message.message_type = pick(random, ["text", "post", "image", "file", "audio", "media", "sticker", "merge_forward", 7]);
    return;
  }
  const [parent, key] = randomSlot(root, random);
  if (random() < 0.4) delete parent[key];
  else parent[key] = structuredClone(pick(random, JUNK));
}

function objectOrNull(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** A random (object, key) pair somewhere in the tree. */
function randomSlot(root: Record<string, unknown>, random: Random): [Record<string, unknown>, string] {
  let node = root;
  for (;;) {
    const keys = Object.keys(node);
    if (keys.length === 0) return [node, "x"];
    const key = pick(random, keys);
    const child = node[key];
    if (child === null || typeof child !== "object" || random() < 0.35) return [node, key];
    node = child as Record<string, unknown>;
  }
}
