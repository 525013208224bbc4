/**
 * Tiny WASI "command" modules, assembled byte by byte: the WASM tests need real .wasm files and this machine
 * has no WebAssembly compiler. The module's _start writes `stdout` to fd 1 and, when asked, first creates a
 * file in its preopened directory (fd 3, the run's work directory) with path_open and writes to it. In WAT:
 *
 *   (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
 *   (import "wasi_snapshot_preview1" "path_open" (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
 *   (memory (export "memory") 1)
 *   (func (export "_start")
 *     ;; optional: path_open(3, 0, name, O_CREAT, FD_WRITE) -> fd at [12]; fd_write(fd, iovec(content))
 *     ;; fd_write(1, iovec(stdout)))
 */

const OP = {
  i32Const: 0x41,
  i64Const: 0x42,
  i32Load: 0x28,
  i32Store: 0x36,
  call: 0x10,
  drop: 0x1a,
  end: 0x0b,
} as const;

function unsignedLeb(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  do {
    let byte = rest & 0x7f;
    rest >>>= 7;
    if (rest !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (rest !== 0);
  return bytes;
}

function signedLeb(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    const done = (rest === 0 && (byte & 0x40) === 0) || (rest === -1 && (byte & 0x40) !== 0);
    bytes.push(done ? byte : byte | 0x80);
    if (done) return bytes;
  }
}

const utf8 = (text: string) => [...Buffer.from(text, "utf8")];
const name = (text: string) => [...unsignedLeb(utf8(text).length), ...utf8(text)];
const vector = (items: number[][]) => [...unsignedLeb(items.length), ...items.flat()];
const section = (id: number, content: number[]) => [id, ...unsignedLeb(content.length), ...content];
const i32 = (value: number) => [OP.i32Const, ...signedLeb(value)];
const store = (address: number, value: number[]) => [...i32(address), ...value, OP.i32Store, 2, 0];
const load = (address: number) => [...i32(address), OP.i32Load, 2, 0];

const I32 = 0x7f;
const I64 = 0x7e;
const funcType = (params: number[], results: number[]) => [0x60, ...vector(params.map((p) => [p])), ...vector(results.map((r) => [r]))];

// Memory layout: [0] iovec {ptr, len}, [8] bytes written, [12] opened fd, then the strings.
const IOVEC = 0;
const WRITTEN = 8;
const OPENED_FD = 12;
const STDOUT_AT = 64;
const FILE_NAME_AT = 1024;
const FILE_CONTENT_AT = 2048;
const PREOPENED_DIR_FD = 3;
const O_CREAT = 1;
const RIGHT_FD_WRITE = 64;
const FD_WRITE = 0;
const PATH_OPEN = 1;

function writeCall(fd: number[], at: number, length: number): number[] {
  return [
    ...store(IOVEC, i32(at)),
    ...store(IOVEC + 4, i32(length)),
    ...fd,
    ...i32(IOVEC),
    ...i32(1),
    ...i32(WRITTEN),
    OP.call,
    FD_WRITE,
    OP.drop,
  ];
}

export function wasiModule(opts: { stdout: string; createFile?: { name: string; content: string } }): Uint8Array {
  const data: Array<[number, string]> = [[STDOUT_AT, opts.stdout]];
  const body: number[] = [];
  if (opts.createFile) {
    data.push([FILE_NAME_AT, opts.createFile.name], [FILE_CONTENT_AT, opts.createFile.content]);
    body.push(
      ...i32(PREOPENED_DIR_FD),
      ...i32(0),
      ...i32(FILE_NAME_AT),
      ...i32(utf8(opts.createFile.name).length),
      ...i32(O_CREAT),
      OP.i64Const,
      ...signedLeb(RIGHT_FD_WRITE),
      OP.i64Const,
      ...signedLeb(0),
      ...i32(0),
      ...i32(OPENED_FD),
      OP.call,
      PATH_OPEN,
      OP.drop,
      ...writeCall(load(OPENED_FD), FILE_CONTENT_AT, utf8(opts.createFile.content).length),
    );
  }
  body.push(...writeCall(i32(1), STDOUT_AT, utf8(opts.stdout).length), OP.end);

  const types = vector([
    funcType([I32, I32, I32, I32], [I32]),
    funcType([I32, I32, I32, I32, I32, I64, I64, I32, I32], [I32]),
    funcType([], []),
  ]);
  const imports = vector([
    [...name("wasi_snapshot_preview1"), ...name("fd_write"), 0x00, 0],
    [...name("wasi_snapshot_preview1"), ...name("path_open"), 0x00, 1],
  ]);
  const functions = vector([[2]]);
  const memory = vector([[0x00, 1]]);
  const exports = vector([
    [...name("memory"), 0x02, 0],
    [...name("_start"), 0x00, 2],
  ]);
  const code = vector([[...unsignedLeb(body.length + 1), 0, ...body]]);
  const segments = vector(data.map(([at, text]) => [0x00, ...i32(at), OP.end, ...name(text)]));
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, types),
    ...section(2, imports),
    ...section(3, functions),
    ...section(5, memory),
    ...section(7, exports),
    ...section(10, code),
    ...section(11, segments),
  ]);
}
