/** The `budgets` section: limits per person, per chat and for the whole gateway, by day and by month. */
import { z } from "zod";

/** A limit in tokens (input + output), in cost (the currency of `llm.prices`), or both. */
const limitSchema = z
  .strictObject({
    tokens: z.number().int().positive().optional(),
    cost: z.number().positive().optional(),
  })
  .refine((limit) => limit.tokens !== undefined || limit.cost !== undefined, { message: "set tokens, cost or both" });

const scopeSchema = z.strictObject({
  daily: limitSchema.optional(),
  monthly: limitSchema.optional(),
});

export const budgetsConfigSchema = z
  .strictObject({
    perUser: scopeSchema.default({}),
    perChat: scopeSchema.default({}),
    global: scopeSchema.default({}),
    /** By `channel:id` of a person or a chat: its own limits, in place of perUser's or perChat's for those periods. */
    overrides: z.record(z.string().regex(/^[a-z]+:.+$/, "expected channel:id, e.g. telegram:12345"), scopeSchema).default({}),
    /** Share of a limit at which the person is told, once per period. */
    warnAt: z.number().gt(0).max(1).default(0.8),
    /** Owners (access.owners) are held to no budget; their use still counts towards the chat's and the global one. */
    exemptOwners: z.boolean().default(true),
  })
  .prefault({});

export type BudgetsConfig = z.infer<typeof budgetsConfigSchema>;
export type ScopeBudget = z.infer<typeof scopeSchema>;
export type Limit = z.infer<typeof limitSchema>;
