/** What every bench/*.bench.ts `run()` returns; bench/run.ts prints it as a table. */
export type BenchResult = {
  name: string;
  /** One line saying what was measured, so the numbers can be compared between runs. */
  workload: string;
  rows: Array<Record<string, string | number>>;
};
