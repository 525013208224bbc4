/**
 * The latest log lines, kept in memory for the console's live tail. It sees each line as pino wrote it, after
 * the logger replaced configured secrets, so the tail is as redacted as the log itself.
 */
export interface TailLine {
  /** Increasing number of the line in this process, for "lines after N". */
  seq: number;
  line: string;
}

const DEFAULT_CAPACITY = 500;

export class LogTail {
  private readonly lines: TailLine[] = [];
  private seq = 0;

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  /** For pino's streamWrite hook: records the line and passes it on unchanged. */
  readonly write = (line: string): string => {
    this.seq += 1;
    this.lines.push({ seq: this.seq, line: line.trimEnd() });
    if (this.lines.length > this.capacity) this.lines.shift();
    return line;
  };

  /** Lines numbered after `seq`, oldest first, at most `limit` of the newest. */
  after(seq: number, limit = this.capacity): TailLine[] {
    return this.lines.filter((l) => l.seq > seq).slice(-limit);
  }
}
