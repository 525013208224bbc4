// The owner's console: a Preact app built into public/build/console, served by the gateway at /console/.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/console/",
  // Preact's automatic JSX runtime through Vite's own transform: no framework plugin needed.
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: { outDir: fileURLToPath(new URL("../public/build/console", import.meta.url)), emptyOutDir: true, target: "es2022" },
  publicDir: false,
  logLevel: "warn",
});
