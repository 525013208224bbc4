/** The desktop feature's settings: off by default; an existing X display or one the gateway starts itself. */
import { z } from "zod";

export const desktopConfigSchema = z
  .strictObject({
    enabled: z.boolean().default(false),
    /** An existing X display such as ":0", or "auto": the gateway starts Xvfb with openbox and stops it with itself. */
    display: z
      .string()
      .regex(/^(auto|[\w.-]*:\d+(\.\d+)?)$/, 'expected "auto" or an X display such as ":0"')
      .default("auto"),
    /** The virtual display's size (with "auto"). */
    size: z
      .string()
      .regex(/^\d{2,5}x\d{2,5}$/, "expected WIDTHxHEIGHT such as 1280x800")
      .default("1280x800"),
  })
  .prefault({});

export type DesktopConfig = z.output<typeof desktopConfigSchema>;

export interface Size {
  width: number;
  height: number;
}

export function parseSize(size: string): Size {
  const [width, height] = size.split("x").map(Number) as [number, number];
  return { width, height };
}
