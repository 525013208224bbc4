import { defineConfig } from "vitest/config";

// CI asks for a JSON report beside the usual output, to print its one-line summary.
const report = process.env.SWITCHBOARD_TEST_REPORT;

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
    // Vitest's default is one worker fewer than the cores: one on CI's two. The suites mostly wait on fakes and
    // child processes, so two files at a time finish in about half the time.
    maxWorkers: 2,
    env: { NO_PROXY: "127.0.0.1,localhost", no_proxy: "127.0.0.1,localhost" },
    reporters: report ? ["default", ["json", { outputFile: report }]] : ["default"],
  },
});
