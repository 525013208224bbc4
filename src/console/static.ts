/**
 * The console's page and assets: built by Vite from console/ into public/build/console (npm run build), served
 * from there with a Content-Security-Policy that allows only the gateway's own scripts, styles and API.
 */
import { readFile } from "node:fs/promises";
import { extname, normalize, sep } from "node:path";
import type { Hono } from "hono";
import { packageFile } from "../infra/package-files.js";

/** With its trailing separator, so that a path under it starts with it and a sibling folder's does not. */
const BUILD_DIR = packageFile("public", "build", "console") + sep;

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

const HEADERS = {
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};

const NOT_BUILT = "The console is not built. Run `npm run build` (it builds console/ with Vite into public/build/console).";

/** The page itself needs no token (it holds no data); the API behind it does. */
export function serveConsolePage(app: Hono): void {
  app.get("/console", (c) => c.redirect("/console/"));
  app.get("/console/*", async (c) => {
    const relative = c.req.path.slice("/console/".length) || "index.html";
    const file = normalize(BUILD_DIR + relative);
    if (!file.startsWith(BUILD_DIR) || file.includes(`${sep}.`)) return c.text("Not found", 404);
    const type = TYPES[extname(file)];
    const body = type ? await readFile(file).catch(() => null) : null;
    if (body) {
      const caching = relative.startsWith("assets/") ? "public, max-age=31536000, immutable" : "no-cache";
      return c.body(body, 200, { ...HEADERS, "Content-Type": type!, "Cache-Control": caching });
    }
    if (relative === "index.html") return c.text(NOT_BUILT, 503);
    return c.text("Not found", 404);
  });
}
