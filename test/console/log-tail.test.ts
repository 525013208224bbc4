import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/infra/log.js";
import { LogTail } from "../../src/infra/log-tail.js";

describe("LogTail", () => {
  it("keeps the newest lines as the logger wrote them, secrets already replaced", () => {
    const tail = new LogTail(2);
    const written: string[] = [];
    const log = createLogger({ level: "info", secrets: ["s3cret-token"], destination: { write: (l: string) => void written.push(l) }, tap: tail.write });
    log.info("one");
    log.info({ header: "Bearer s3cret-token" }, "two");
    log.info("three");
    const lines = tail.after(0);
    expect(lines.map((l) => l.seq)).toEqual([2, 3]);
    expect(lines[0]!.line).toContain("[REDACTED]");
    expect(lines[0]!.line).not.toContain("s3cret-token");
    expect(written).toHaveLength(3);
    expect(tail.after(2).map((l) => JSON.parse(l.line).msg)).toEqual(["three"]);
  });
});
