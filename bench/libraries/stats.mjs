// Medians and quartiles of the timing samples.

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (pos - lo);
};
export const stats = (xs) => ({
  n: xs.length,
  median: +median(xs).toFixed(1),
  p25: +quantile(xs, 0.25).toFixed(1),
  p75: +quantile(xs, 0.75).toFixed(1),
  min: +Math.min(...xs).toFixed(1),
  max: +Math.max(...xs).toFixed(1),
});
