/** Reading the gateway's Prometheus registry, for tests that check a metric moved. */
import { metricsRegistry } from "../../src/infra/metrics.js";

/**
 * The current value of one series of a counter or gauge (or, with `part`, of a histogram's count or sum); 0 when
 * the series was never written.
 */
export async function metricValue(name: string, labels: Record<string, string> = {}, part?: "count" | "sum"): Promise<number> {
  const metric = metricsRegistry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric named ${name} is registered`);
  const { values } = await metric.get();
  const wanted = part === undefined ? name : `${name}_${part}`;
  const matches = (v: (typeof values)[number]): boolean => {
    const own = Object.entries(v.labels).filter(([key]) => key !== "le");
    return ((v as { metricName?: string }).metricName ?? name) === wanted && own.length === Object.keys(labels).length && own.every(([key, value]) => labels[key] === String(value));
  };
  return values.find(matches)?.value ?? 0;
}
