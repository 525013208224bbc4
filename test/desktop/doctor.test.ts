/** `switchboard doctor`'s desktop line: off, a display that does not answer, and a virtual display to come. */
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { desktopFeature } from "../../src/features/desktop.js";
import { coreConfigSchema } from "../../src/infra/config/core-schema.js";
import { desktopConfigSchema, desktopUnavailable } from "../../src/desktop/index.js";

const core = coreConfigSchema.parse({});
const log = pino({ level: "silent" });
const doctor = (settings: unknown) => desktopFeature.doctor!(desktopConfigSchema.parse(settings), core, log);
const missing = await desktopUnavailable(desktopConfigSchema.parse({}));

describe("desktop doctor", () => {
  it("says the desktop is off by default", async () => {
    expect(await doctor({})).toEqual([{ name: "desktop", ok: true, detail: "off (desktop.enabled: false)" }]);
  });

  it.skipIf(missing !== null)("names a display that does not answer and how to fix it", async () => {
    const [line] = await doctor({ enabled: true, display: ":987" });
    expect(line).toMatchObject({ ok: false, detail: expect.stringContaining("the X display :987 does not answer"), fix: expect.stringContaining("desktop.display") });
  });

  it.skipIf(missing !== null)("reports the virtual display that starts with the gateway", async () => {
    const [line] = await doctor({ enabled: true, size: "1024x768" });
    expect(line).toMatchObject({ ok: true, detail: expect.stringContaining("1024x768") });
  });

  it("refuses a malformed size or display, naming the expected form", () => {
    expect(desktopConfigSchema.safeParse({ size: "big" }).error?.issues[0]?.message).toMatch(/WIDTHxHEIGHT/);
    expect(desktopConfigSchema.safeParse({ display: "zero" }).error?.issues[0]?.message).toMatch(/"auto" or an X display/);
  });
});
