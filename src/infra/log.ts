/**
 * pino logging: JSON lines, pretty on a TTY. Configured secrets are replaced wherever they appear in a
 * log record, so a token pasted into an error message or a URL never reaches the log.
 */
import { pino, type Logger } from "pino";
import { redactSecrets } from "./config/secrets.js";

export type { Logger };

export interface LoggerOptions {
  level: string;
  pretty?: boolean | null;
  secrets: readonly string[];
  destination?: pino.DestinationStream;
  /** Sees every serialized line before it is written (the console's log tail); returns it unchanged. */
  tap?: (line: string) => string;
}

export function createLogger(opts: LoggerOptions): Logger {
  const pretty = opts.pretty ?? (process.stdout.isTTY === true && opts.destination === undefined);
  const options: pino.LoggerOptions = {
    level: opts.level,
    base: undefined,
    hooks: {
      // Rewrites every argument before pino serializes it.
      logMethod(args, method) {
        const cleaned = args.map((arg) => redactSecrets(arg, opts.secrets)) as Parameters<typeof method>;
        method.apply(this, cleaned);
      },
      ...(opts.tap ? { streamWrite: opts.tap } : {}),
    },
  };
  if (opts.destination) return pino(options, opts.destination);
  if (pretty) return pino({ ...options, transport: { target: "pino-pretty", options: { colorize: true } } });
  return pino(options);
}
