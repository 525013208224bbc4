/** The `images` section: an OpenAI-compatible image endpoint; without baseUrl the image tools are not offered. */
import { z } from "zod";

export const imagesConfigSchema = z
  .strictObject({
    /** The endpoint (…/v1) answering /images/generations and /images/edits; null = no image tools. */
    baseUrl: z.url({ protocol: /^https?$/ }).nullable().default(null),
    apiKey: z.string().min(1).nullable().default(null),
    model: z.string().min(1).default("gpt-image-1"),
    /** What one picture costs, in the currency of llm.prices and the budgets (USD at OpenAI's list prices): usage and cost budgets count it. */
    pricePerImage: z.number().min(0).default(0),
    /** The most images one call may ask for. */
    maxImages: z.number().int().min(1).max(10).default(4),
    timeoutMs: z.number().int().positive().default(180_000),
  })
  .prefault({});
export type ImagesConfig = z.infer<typeof imagesConfigSchema>;
