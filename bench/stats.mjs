/** Median, p10, p90, min and max of a list of numbers (nearest-rank percentiles), rounded to 0.1. */
export function summarize(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
  const round = (value) => Math.round(value * 10) / 10;
  return {
    runs: sorted.length,
    median: round(median(sorted)),
    p10: round(at(0.1)),
    p90: round(at(0.9)),
    min: round(sorted[0]),
    max: round(sorted[sorted.length - 1]),
  };
}

function median(sorted) {
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
