/**
 * Finding an element on a screenshot with the configured vision model: the model gets the image and the target's
 * description and answers a box in pixels, which is checked against the screenshot's size before anyone clicks it.
 */
import { z } from "zod";
import type { Size } from "./config.js";
import { DesktopError, type Region } from "./control.js";

/** Asks the gateway's model about an image (a port: the plug builds it from the `llm` settings). */
export type AskVision = (prompt: string, png: Buffer) => Promise<{ text: string; totalTokens: number | undefined }>;

export interface LocatedElement {
  found: boolean;
  center?: { x: number; y: number };
  box?: Region;
  method: "vision";
  model_calls: number;
  tokens: number | undefined;
}

const answerSchema = z.union([
  z.object({ found: z.literal(false) }),
  z.object({ found: z.literal(true).default(true), x: z.number(), y: z.number(), width: z.number().positive(), height: z.number().positive() }),
]);

export function visionPrompt(target: string, size: Size): string {
  return [
    `This is a ${size.width}x${size.height} pixel screenshot of a desktop. Find this element: ${JSON.stringify(target)}.`,
    'Answer with JSON only: {"found": true, "x": LEFT, "y": TOP, "width": W, "height": H} in screenshot pixels,',
    'or {"found": false} if it is not visible.',
  ].join("\n");
}

export async function locateByVision(ask: AskVision, png: Buffer, size: Size, target: string): Promise<LocatedElement> {
  const { text, totalTokens } = await ask(visionPrompt(target, size), png).catch((err: unknown) => {
    throw new DesktopError(`the vision model did not answer: ${err instanceof Error ? err.message : String(err)}`);
  });
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  const parsed = json ? answerSchema.safeParse(safeJson(json)) : undefined;
  if (!parsed?.success) throw new DesktopError(`the vision model's answer is not a box: ${text.slice(0, 200)}`);
  const answer = parsed.data;
  if (!("x" in answer)) return { found: false, method: "vision", model_calls: 1, tokens: totalTokens };
  const box = { x: Math.round(answer.x), y: Math.round(answer.y), width: Math.round(answer.width), height: Math.round(answer.height) };
  if (box.x < 0 || box.y < 0 || box.x + box.width > size.width || box.y + box.height > size.height) {
    throw new DesktopError(`the vision model answered a box outside the ${size.width}x${size.height} screen: ${JSON.stringify(box)}`);
  }
  const center = { x: box.x + Math.floor(box.width / 2), y: box.y + Math.floor(box.height / 2) };
  return { found: true, center, box, method: "vision", model_calls: 1, tokens: totalTokens };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
