/**
 * The console's skill routes: the installed skills with their type and the problems the last load found, a
 * reload, and installing an uploaded .zip or .tar.gz (checked by the same installer as `switchboard skills add`).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { consoleError } from "../infra/http/errors.js";
import type { Skills } from "./index.js";
import { InstallError } from "./installer.js";
import type { LoadReport } from "./registry.js";

const MAX_ARCHIVE_MB = 20;
const MAX_ARCHIVE_BYTES = MAX_ARCHIVE_MB * 1024 * 1024;
const ARCHIVE_NAME = /\.(zip|tar\.gz|tgz)$/i;

export function skillRoutes(skills: Skills): Hono {
  const routes = new Hono();
  let lastLoad: LoadReport | null = null;
  const reload = async (): Promise<LoadReport> => (lastLoad = await skills.service.reload());
  const view = (report: LoadReport) => ({
    skills: skills.service.list().map((s) => ({ name: s.name, description: s.description, type: s.type, origin: s.origin, dir: s.dir })),
    issues: report.issues,
  });

  // The first look loads once, so the problems are those of the skills on disk now.
  routes.get("/", async (c) => c.json(view(lastLoad ?? (await reload()))));
  routes.post("/reload", async (c) => c.json(view(await reload())));
  const limit = bodyLimit({
    maxSize: MAX_ARCHIVE_BYTES,
    onError: (c) => consoleError(c, 413, { code: "archive_too_large", mb: MAX_ARCHIVE_MB }, `The archive is larger than ${MAX_ARCHIVE_MB} MB`),
  });
  routes.post("/install", limit, async (c) => {
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const file = form["archive"];
    if (!(file instanceof File)) return consoleError(c, 400, { code: "archive_missing" }, "Send the skill as a multipart form field named archive");
    const extension = ARCHIVE_NAME.exec(file.name)?.[0];
    if (!extension) return consoleError(c, 400, { code: "bad_archive", name: file.name }, `${file.name} is not a .zip, .tar.gz or .tgz archive`);
    const dir = await mkdtemp(join(tmpdir(), "switchboard-skill-upload-"));
    try {
      const archive = join(dir, `upload${extension.toLowerCase()}`);
      await writeFile(archive, Buffer.from(await file.arrayBuffer()));
      const report = await skills.service.install(archive);
      return c.json({ installed: report, ...view(await reload()) });
    } catch (err) {
      if (err instanceof InstallError) return consoleError(c, 422, { code: "install_failed", detail: err.message }, err.message);
      throw err;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  return routes;
}
