/**
 * The console's JSON API, /api/v1/console/..., behind consoleAuth. Each route reads or acts through the part
 * that owns the data (sessions, pairing, log tail, and each feature's own routes); nothing here keeps state.
 */
import { Hono, type Context } from "hono";
import { modelStateText } from "../agent/model-health.js";
import { z } from "zod";
import { redactSecrets } from "../infra/config/secrets.js";
import { consoleError } from "../infra/http/errors.js";
import { consoleAuth } from "./auth.js";
import type { ConsoleDeps } from "./deps.js";
import { transcriptOf } from "./transcript.js";

export const CONSOLE_API = "/api/v1/console";

const pairingCodeSchema = z.object({ channel: z.string().min(1), code: z.string().min(1).max(64) });
const pairingDenySchema = z.object({ channel: z.string().min(1), userId: z.string().min(1) });
const afterSchema = z.coerce.number().int().min(0).default(0);

export function registerConsoleApi(deps: ConsoleDeps): void {
  const api = new Hono();
  api.use(consoleAuth(deps.token));
  api.get("/channels", async (c) => {
    const models = deps.models().map((model) => ({ name: model.name, state: model.state, detail: modelStateText(model) }));
    return c.json({ channels: deps.channels(), replicas: await deps.replicas(), models });
  });
  sessionRoutes(api, deps);
  for (const [path, routes] of Object.entries(deps.featureRoutes)) api.route(`/${path}`, routes);
  accessRoutes(api, deps);
  api.get("/logs", (c) => {
    const after = afterSchema.safeParse(c.req.query("after"));
    if (!after.success) return consoleError(c, 400, { code: "bad_request" }, "after is a line number (0 or more)");
    return c.json({ available: deps.logTail !== null, lines: deps.logTail?.after(after.data) ?? [] });
  });
  api.get("/config", (c) => c.json({ config: redactSecrets(deps.config, deps.secrets) }));
  deps.http.app.route(CONSOLE_API, api);
}

function sessionRoutes(api: Hono, deps: ConsoleDeps): void {
  api.get("/sessions", async (c) => c.json({ sessions: await deps.sessions.list(c.req.query("q") ?? "") }));
  api.get("/sessions/:key/transcript", async (c) => {
    const key = c.req.param("key");
    if (!(await deps.sessions.has(key))) return consoleError(c, 404, { code: "session_not_found", session: key }, `No session ${key}`);
    const record = await deps.history.load(key);
    return c.json({ key, summary: record.summary, messages: transcriptOf(record.messages, deps.secrets) });
  });
  api.post("/sessions/:key/reset", async (c) => {
    const key = c.req.param("key");
    if (!(await deps.sessions.has(key))) return consoleError(c, 404, { code: "session_not_found", session: key }, `No session ${key}`);
    await deps.resetSession(key);
    return c.json({ key, reset: true });
  });
}

function accessRoutes(api: Hono, deps: ConsoleDeps): void {
  const { access, pairing } = deps;
  api.get("/access", async (c) =>
    c.json({
      pending: (await pairing.pending()).map(({ channel, userId, chatId, name, code, requestedAt, expiresAt }) => ({
        channel,
        userId,
        chatId,
        name,
        code,
        requestedAt,
        expiresAt,
      })),
      members: await pairing.members(),
      lists: { owners: access.owners, allowFrom: access.allowFrom, dmPolicy: access.dmPolicy, groupPolicy: access.groupPolicy },
    }),
  );
  api.post("/access/pairing/approve", async (c) => {
    const body = await jsonBody(c, pairingCodeSchema);
    if (!body.ok) return body.response;
    const result = await pairing.approve(body.value.channel, body.value.code, "console");
    if (result.ok) return c.json({ member: result.member });
    const why = { malformed: "That is not a pairing code", unknown: "No pending request has that code", locked: "Too many wrong codes; wait and try again" };
    return consoleError(c, result.reason === "locked" ? 429 : 404, { code: result.reason }, why[result.reason]);
  });
  api.post("/access/pairing/deny", async (c) => {
    const body = await jsonBody(c, pairingDenySchema);
    if (!body.ok) return body.response;
    const removed = await pairing.revoke(body.value.channel, body.value.userId);
    return removed ? c.json({ denied: true }) : consoleError(c, 404, { code: "pairing_not_found" }, "No such request or member");
  });
}

export async function jsonBody<T>(c: Context, schema: z.ZodType<T>): Promise<{ ok: true; value: T } | { ok: false; response: Response }> {
  const raw = await c.req.json().catch(() => undefined);
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`);
  return { ok: false, response: consoleError(c, 400, { code: "bad_request" }, "The request body is not valid JSON of the expected shape", { problems }) };
}
