// Builds dist/ (or the folder given, inside the package: the gateway finds its config/ and public/ above it):
// src/ compiled and bundled by esbuild into ~40 ES modules, with the packages every start loads. Node resolves,
// reads and compiles each module file on its own, and a start loaded ~950 of them (~270 of ours, the rest from
// node_modules); it now reads ~70, and the start to the first Telegram poll takes about a third less. Type
// checking is tsc's (`npm run build` runs it first).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isBuiltin } from "node:module";
import { decode, encode } from "@jridgewell/sourcemap-codec";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = resolve(root, process.argv[2] ?? "dist");
const command = resolve(outdir, "cli.js");
// Emptied before it is written, so it must be a folder below the package's root.
if (!outdir.startsWith(root)) throw new Error(`bundle: ${outdir} is not a folder inside ${root}`);

// The packages a start loads, bundled with what they import. Every other package stays in node_modules, imported
// when first needed as before: the Feishu SDK, Redis, the sandbox's process runner, archives, media probes. So
// do pino (its transports run a worker from its own files) and better-sqlite3 (a native addon).
// discord.js and the MCP SDK load only when Discord or an MCP server is configured, but are bundled too (into chunks
// read only then): from node_modules they brought second copies of undici and ws (discord.js) and zod (the MCP
// SDK) beside the start path's bundled ones. Sharing them, a gateway connected to Discord in ~16 MiB less RSS, and
// to an MCP server in ~13 MiB less. The Feishu SDK would share only ws, and reads `__dirname`, which a bundled ES
// module lacks.
// A package missing here is only loaded unbundled; one added must work bundled (test/build/bundle.test.ts).
const BUNDLED = new Set([
  "@ai-sdk/anthropic",
  "@ai-sdk/openai-compatible",
  "@hono/node-server",
  "@modelcontextprotocol/sdk",
  "ai",
  "chokidar",
  "commander",
  "croner",
  "discord.js",
  "eventsource-parser",
  "grammy",
  "gray-matter",
  "hono",
  "image-size",
  "lru-cache",
  "markdown-it",
  "minisearch",
  "p-retry",
  "prom-client",
  "proper-lockfile",
  "undici",
  "ws",
  "yaml",
  "zod",
]);

const packageName = (specifier) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");

/** Our imports of a listed package, and whatever a bundled package imports, are bundled; the rest is external. */
const listedPackagesOnly = {
  name: "listed-packages-only",
  setup(esbuild) {
    esbuild.onResolve({ filter: /^[^./]/ }, ({ path, importer }) => {
      if (isBuiltin(path)) return { external: true };
      if (importer.includes("/node_modules/") || BUNDLED.has(packageName(path))) return undefined;
      return { external: true };
    });
  },
};

/**
 * V8 keeps a module's source as one string, of two bytes a character when one of them is past Latin-1. esbuild
 * writes strings in ASCII but leaves regular expressions as written, so a few Chinese characters in one (the
 * reminder parser's) would double a whole chunk's share of the heap. Escaped as \uXXXX they mean the same; a
 * backslash before one (an identity escape) is dropped, since `\每` is `每`. The source map's columns move with
 * what each line grew by.
 */
function narrow(code, map) {
  const lines = code.split("\n");
  const mappings = decode(map.mappings);
  lines.forEach((line, index) => {
    /** [column in the line as written, how much longer the line is from there on] */
    const grown = [];
    let longer = 0;
    lines[index] = line.replace(/(\\*)([\u0100-\uffff])/g, (match, slashes, char, at) => {
      const escaped = `${slashes.slice(slashes.length % 2)}\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
      longer += escaped.length - match.length;
      grown.push([at + match.length, longer]);
      return escaped;
    });
    if (grown.length === 0) return;
    for (const segment of mappings[index] ?? []) {
      const before = grown.findLast(([column]) => column <= segment[0]);
      if (before) segment[0] += before[1];
    }
  });
  return { code: lines.join("\n"), map: JSON.stringify({ ...map, mappings: encode(mappings) }) };
}

const { outputFiles } = await build({
  absWorkingDir: root,
  entryPoints: ["src/cli.ts"],
  outbase: "src",
  outdir,
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  sourcemap: true,
  // Classes and functions keep their names where the bundle renames them (two packages' HttpError): logs name an
  // error by its class, and node-fetch (grammY's) checks a signal's class by name.
  keepNames: true,
  // Without comments and indentation the modules are a third smaller to read, parse and keep in memory; stack traces
  // keep their function names, and the source maps lead back to src/.
  minifyWhitespace: true,
  // The bundled CommonJS packages call require() for Node's own modules, which an ES module lacks.
  banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
  plugins: [listedPackagesOnly],
  logLevel: "warning",
  write: false,
});

const written = new Map(outputFiles.map((file) => [file.path, file.text]));
for (const file of outputFiles.filter(({ path }) => path.endsWith(".js"))) {
  const { code, map } = narrow(file.text, JSON.parse(written.get(`${file.path}.map`)));
  written.set(file.path, code).set(`${file.path}.map`, map);
}
// Chunk names change with their content: a stale one would stay beside the new.
rmSync(outdir, { recursive: true, force: true });
for (const [path, text] of written) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text, { mode: path === command ? 0o755 : 0o644 });
}
