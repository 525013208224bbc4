/**
 * generate_image and edit_image: pictures made by the configured image endpoint, saved in the workspace and
 * delivered to the chat as photos, answered with the delivery receipts.
 */
import { z } from "zod";
import { implementTool, type ToolContext, type ToolHandlerSpec } from "../core/tools.js";

const CATEGORY = "Images";
/** Image models take a minute or more for a large picture. */
const IMAGE_TIMEOUT_MS = 5 * 60_000;
const size = z
  .string()
  .regex(/^(\d{2,5}x\d{2,5}|auto)$/, "must be WIDTHxHEIGHT such as 1024x1024, or auto")
  .optional()
  .describe("WIDTHxHEIGHT such as 1024x1024 (what the model supports); default: the model's");

export interface ImageToolInput {
  prompt: string;
  size?: string | undefined;
  n?: number | undefined;
}

export interface ImagesToolDeps {
  maxImages: number;
  /** Generates and delivers; returns {ok, paths, receipts}. */
  generate(input: ImageToolInput, ctx: ToolContext): Promise<unknown>;
  /** Edits the workspace image at `image` and delivers the results. */
  edit(input: ImageToolInput & { image: string }, ctx: ToolContext): Promise<unknown>;
}

export function createImagesHandler(deps: ImagesToolDeps): ToolHandlerSpec {
  const prompt = z.string().trim().min(1).max(4000).describe("What to draw, in detail");
  const n = z.number().int().min(1).max(deps.maxImages).optional().describe(`How many images, 1 to ${deps.maxImages}; default 1`);
  const generateImage = implementTool(
    {
      name: "generate_image",
      category: CATEGORY,
      shortDescription: "Draw a picture from a description and send it to the chat",
      description: [
        "Makes images from a text prompt with the configured image model, saves them in the workspace (images/)",
        "and sends them to this chat as photos; returns {ok, paths, receipts} like deliver_artifacts.",
        "",
        "When to use: the user asks you to draw, paint, design or picture something.",
        'Example: generate_image({"prompt": "a watercolor fox in the snow", "size": "1024x1024"})',
      ].join("\n"),
      input: z.object({ prompt, size, n }),
      risk: "chat",
      timeoutMs: IMAGE_TIMEOUT_MS,
    },
    (input, ctx) => deps.generate(input, ctx),
  );
  const editImage = implementTool(
    {
      name: "edit_image",
      category: CATEGORY,
      shortDescription: "Change an image the user sent, as described, and send the result",
      description: [
        "Edits a workspace image (one the user sent: get its path with get_image_file first) with the configured",
        "image model, and sends the results to this chat as photos; returns {ok, paths, receipts}. Fails when the",
        "endpoint does not support edits.",
        "",
        'Example: edit_image({"image": "inbox/photo.jpg", "prompt": "make the sky a sunset"})',
      ].join("\n"),
      input: z.object({ image: z.string().min(1).max(500).describe("Workspace path of the image to edit"), prompt, size, n }),
      risk: "chat",
      timeoutMs: IMAGE_TIMEOUT_MS,
    },
    (input, ctx) => deps.edit(input, ctx),
  );
  return { name: "images", tools: [generateImage, editImage] };
}
