/** GET /api/v1/receipts?chat=ID&limit=N: the delivery receipts ledger, newest first, behind the API token. */
import { z } from "zod";
import type { ReceiptLedger } from "./receipts.js";
import { consoleError } from "../infra/http/errors.js";
import type { HttpServer } from "../infra/http/server.js";

const MAX_LIMIT = 1_000;

const querySchema = z.object({
  chat: z.string().min(1).max(300).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(100),
});

export function registerReceiptRoutes(http: HttpServer, ledger: ReceiptLedger): void {
  http.app.get("/api/v1/receipts", http.auth, async (c) => {
    const parsed = querySchema.safeParse(c.req.query());
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
      return consoleError(c, 400, { code: "bad_request" }, `Bad query; chat is "channel:chatId" or a chat id, limit 1-${MAX_LIMIT}`, { problems });
    }
    return c.json({ receipts: await ledger.list(parsed.data) });
  });
}
