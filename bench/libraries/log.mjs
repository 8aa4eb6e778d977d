// Progress lines on stderr.
export const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);
