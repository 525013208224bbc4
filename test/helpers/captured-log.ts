/** A real pino logger (secret redaction included) whose records land in an array that a test can inspect. */
import { Writable } from "node:stream";
import { createLogger, type Logger } from "../../src/infra/log.js";

export interface LogRecord {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export function captureLog(secrets: readonly string[], level = "debug"): { log: Logger; logs: LogRecord[] } {
  const logs: LogRecord[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(JSON.parse(chunk.toString("utf8")) as LogRecord);
      done();
    },
  });
  return { log: createLogger({ level, secrets, destination }), logs };
}
