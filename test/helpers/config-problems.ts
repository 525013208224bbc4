/** The problems a ConfigError lists, from a config load that must fail. */
import { ConfigError } from "../../src/config.js";

export function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error("expected a ConfigError");
}
