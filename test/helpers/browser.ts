/**
 * Real Chromium (Debian's /usr/bin/chromium, which .ci/run installs) driven by playwright-core, for the console
 * and WebChat tests. The front-end bundles are built first when missing (CI builds them in `npm run build`).
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BUILT = ["public/build/console/index.html", "public/build/webchat/webchat.js"];

export async function ensureWebBuild(): Promise<void> {
  if (BUILT.every((file) => existsSync(`${ROOT}${file}`))) return;
  await execa("npm", ["run", "build:web"], { cwd: ROOT });
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
