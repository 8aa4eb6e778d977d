// Progress lines on stderr, stamped with the seconds since the start.
export const T0 = performance.now();
export const log = (msg) => process.stderr.write(`[bench ${((performance.now() - T0) / 1000).toFixed(1)}s] ${msg}\n`);
