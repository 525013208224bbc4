/**
 * How each kind of script is started: by its extension, never by a shebang or a shell. WASM modules run under
 * node:wasi in a child Node process, so that timeouts, output caps and kills work the same as for scripts, and a
 * module that spins cannot block the gateway.
 */
import { extname } from "node:path";

/**
 * The WASI host, run with `node --input-type=module -e`: argv is [module path, ...args]; the only directory the
 * module sees is its work directory (the child's cwd), preopened as "/".
 */
const WASI_HOST = `
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { WASI } from "node:wasi";
const [file, ...args] = process.argv.slice(1);
const wasi = new WASI({ version: "preview1", args: [basename(file), ...args], env: process.env,
  preopens: { "/": process.cwd() }, returnOnExit: true });
const instance = await WebAssembly.instantiate(await WebAssembly.compile(await readFile(file)), wasi.getImportObject());
process.exitCode = wasi.start(instance);
`;

interface Interpreter {
  name: string;
  command: string;
  args: (file: string) => string[];
}

const INTERPRETERS: Record<string, Interpreter> = {
  // -B: no __pycache__ next to the script.
  ".py": { name: "python3", command: "python3", args: (file) => ["-B", file] },
  ".sh": { name: "bash", command: "bash", args: (file) => [file] },
  ".bash": { name: "bash", command: "bash", args: (file) => [file] },
  ".js": { name: "node", command: process.execPath, args: (file) => [file] },
  ".mjs": { name: "node", command: process.execPath, args: (file) => [file] },
  ".wasm": {
    name: "wasm (WASI)",
    command: process.execPath,
    args: (file) => ["--no-warnings", "--input-type=module", "-e", WASI_HOST, "--", file],
  },
};

/** The interpreter's name for the model ("python3", "bash"...), or undefined when the file cannot be run. */
export function interpreterName(file: string): string | undefined {
  return INTERPRETERS[extname(file)]?.name;
}

/** The command line that runs `file` (an absolute path) with `args`, or undefined for an unknown extension. */
export function commandLine(file: string, args: readonly string[]): { command: string; args: string[] } | undefined {
  const interpreter = INTERPRETERS[extname(file)];
  return interpreter && { command: interpreter.command, args: [...interpreter.args(file), ...args] };
}
