/** Reading the gateway's Prometheus registry, for tests that check a metric moved. */
import { metricsRegistry } from "../../src/infra/metrics.js";

/** The current value of one series of a counter or gauge; 0 when the series was never written. */
export async function metricValue(name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = metricsRegistry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric named ${name} is registered`);
  const { values } = await metric.get();
  const series = values.find((v) => Object.entries(labels).every(([key, value]) => String(v.labels[key]) === value) && Object.keys(v.labels).length === Object.keys(labels).length);
  return series?.value ?? 0;
}
