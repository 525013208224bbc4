// WebChat's Markdown renderer (marked + DOMPurify) and its words (i18next) as one classic script,
// public/build/webchat/webchat.js, which public/webchat.html loads before its own script.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  build: {
    lib: { entry: fileURLToPath(new URL("webchat/main.ts", import.meta.url)), formats: ["iife"], name: "switchboardWebchat", fileName: () => "webchat.js" },
    outDir: fileURLToPath(new URL("../public/build/webchat", import.meta.url)),
    emptyOutDir: true,
    target: "es2020",
  },
  publicDir: false,
  logLevel: "warn",
});
