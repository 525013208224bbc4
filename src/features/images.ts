/**
 * The bot draws: generate_image and edit_image through the `images` endpoint; the pictures are saved in the
 * workspace (images/) and go out through media's delivery as photos, with receipts. Each request is admitted by
 * the budgets' usage port first (pictures that do not all fit in a cost budget: no request) and its pictures counted
 * at images.pricePerImage.
 * doctor lists the endpoint's models, which costs nothing.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { randomHex } from "../core/ids.js";
import { ToolError, type ToolContext } from "../core/tools.js";
import { ImageBudgetRefusal, type UsagePort } from "../core/usage-port.js";
import { createImagesHandler, type ImageToolInput } from "../handlers/images.js";
import { ImageClient } from "../images/client.js";
import { imagesConfigSchema } from "../images/config.js";
import { resolveInWorkspace } from "../infra/workspace.js";
import type { Logger } from "../infra/log.js";
import type { Deliverer } from "../media/deliver.js";
import { mimeFromName } from "../media/file-kinds.js";
import { defineFeature, mediaDelivererOf, usagePortOf } from "./module.js";

const IMAGES_DIR = "images";
const DOCTOR_TIMEOUT_MS = 15_000;

export const imagesFeature = defineFeature({
  name: "images",
  configSchema: imagesConfigSchema,
  secretPaths: ["apiKey"],
  create: (deps) => {
    const { settings } = deps;
    const { baseUrl } = settings;
    if (baseUrl === null) return {};
    const client = new ImageClient({ ...settings, baseUrl });
    const deliverer = mediaDelivererOf(deps);
    if (!deliverer) throw new Error("The images feature sends through the media feature, which must come before it in the list");
    const usage = usagePortOf(deps);
    const pricing = { model: settings.model, pricePerImage: settings.pricePerImage };
    const counted = (input: ImageToolInput, ctx: ToolContext, draw: () => Promise<Buffer[]>) => () => countedDraw(usage, pricing, input.n ?? 1, ctx, draw, deps.log);
    return {
      handlers: [
        createImagesHandler({
          maxImages: settings.maxImages,
          generate: (input, ctx) => drawAndDeliver(deliverer, ctx, counted(input, ctx, () => client.generate(input, ctx.signal))),
          edit: async (input, ctx) => {
            const path = await resolveInWorkspace(ctx.workspaceDir, input.image);
            const data = await readFile(path).catch((err: unknown) => {
              throw new ToolError(`Cannot read ${input.image}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, "invalid_input");
            });
            const name = basename(path);
            const image = { data, name, mime: mimeFromName(name) ?? "image/png" };
            return drawAndDeliver(deliverer, ctx, counted(input, ctx, () => client.edit({ ...promptOf(input), image }, ctx.signal)));
          },
        }),
      ],
    };
  },
  doctor: async (settings) => {
    const { baseUrl, apiKey } = settings;
    if (baseUrl === null) return [{ name: "images", ok: true, detail: "off (images.baseUrl is not set): no image tools" }];
    const host = new URL(baseUrl).host;
    try {
      const response = await fetch(`${baseUrl.replace(/\/+$/, "")}/models`, {
        headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
        signal: AbortSignal.timeout(DOCTOR_TIMEOUT_MS),
      });
      // A server without a model list (404) still answered; a refused key is the one thing this can tell.
      if (response.status === 401 || response.status === 403) throw new Error(`${host} refused the key (HTTP ${response.status})`);
      return [{ name: "images", ok: true, detail: `${host} answers (HTTP ${response.status}); model ${settings.model}` }];
    } catch (err) {
      return [{ name: "images", ok: false, detail: (err as Error).message, fix: "check images.baseUrl and images.apiKey" }];
    }
  },
});

function promptOf(input: ImageToolInput): ImageToolInput {
  return { prompt: input.prompt, size: input.size, n: input.n };
}

/**
 * One request to the image model on the budgets: admitted first for every picture asked for (when they do not all
 * fit, nothing is asked of the endpoint and the model learns how many would), then counted to the person who asked
 * by the pictures it made, the rest of the reservation given back; a failed request costs nothing. A warning that
 * spending nears a limit follows the turn's reply, as a model call's does.
 */
async function countedDraw(
  usage: UsagePort | undefined,
  pricing: { model: string; pricePerImage: number },
  count: number,
  ctx: ToolContext,
  draw: () => Promise<Buffer[]>,
  log: Logger,
): Promise<Buffer[]> {
  if (!usage) return draw();
  const owner = { channel: ctx.channel, userId: ctx.senderId, chatId: ctx.chatId };
  const permit = await usage.admitImages({ owner, count, ...pricing, ...(ctx.speech ? { speech: ctx.speech } : {}) }).catch((err: unknown) => {
    if (err instanceof ImageBudgetRefusal) throw new ToolError(refusedDraw(count, err), "denied");
    throw err;
  });
  let images: Buffer[];
  try {
    images = await draw();
  } catch (err) {
    await permit.settle(null).catch((settleErr: unknown) => log.warn({ err: settleErr, chatId: ctx.chatId }, "could not give back an image request's reservation"));
    throw err;
  }
  // The pictures exist and are paid for at the endpoint: a failed record must not lose them (a retry would pay twice).
  const notice = await permit.settle(images.length).catch((err: unknown) => {
    log.error({ err, chatId: ctx.chatId, images: images.length }, "could not record the pictures in usage");
    return undefined;
  });
  if (notice !== undefined) ctx.addNotice?.(notice);
  return images;
}

/** The model's error for a request whose pictures do not all fit in a cost budget: what is left, and what to do. */
function refusedDraw(count: number, refusal: ImageBudgetRefusal): string {
  const pictures = count === 1 ? "1 picture" : `${count} pictures`;
  if (refusal.fits === 0) return `No image was made: not even one picture fits in the budget, so ${pictures} cannot be made. ${refusal.message}`;
  return `No image was made: ${pictures} would not fit in the budget, ${refusal.fits} would. ${refusal.message} Ask again with n of ${refusal.fits} or fewer, or tell the person.`;
}

/** Saves what the endpoint made under images/ and delivers each as a photo. */
async function drawAndDeliver(deliverer: Deliverer, ctx: ToolContext, draw: () => Promise<Buffer[]>): Promise<unknown> {
  const images = await draw().catch((err: unknown) => {
    if (ctx.signal.aborted || err instanceof ToolError) throw err;
    throw new ToolError(`No image was made: ${(err as Error).message}`, "failed");
  });
  await mkdir(join(ctx.workspaceDir, IMAGES_DIR), { recursive: true });
  const stem = randomHex(6);
  const paths: string[] = [];
  for (const [index, image] of images.entries()) {
    const path = `${IMAGES_DIR}/${stem}-${index + 1}.png`;
    await writeFile(join(ctx.workspaceDir, path), image);
    paths.push(path);
  }
  const result = await deliverer.deliver({ artifacts: paths.map((path) => ({ type: "image" as const, path, dedupe_key: `image:${path}` })) }, ctx);
  return { paths, ...result };
}
