// What the cases found: rows with a target, details without one, git spawn counts and notes.
import { opts } from './options.mjs';

export const results = [];
export const info = [];
export const notes = [];
if (process.env.NODE_EXTRA_CA_CERTS) {
  notes.push(
    opts.keepCaCerts
      ? 'NODE_EXTRA_CA_CERTS was kept (--keep-ca-certs): every node start, fettle and baseline, pays for loading it'
      : 'NODE_EXTRA_CA_CERTS was removed from the environment of every process (it slows every node start by a constant; --keep-ca-certs keeps it)',
  );
}
/** op: '<=' (fettle/baseline at most value), '<' (below it) or '>=' */
export const addCase = (row) => {
  const compare = { '<=': (a, b) => a <= b, '<': (a, b) => a < b, '>=': (a, b) => a >= b };
  const met =
    opts.quick || row.ratio === null || Number.isNaN(row.ratio)
      ? null
      : compare[row.target.op](row.ratio, row.target.value);
  results.push({ ...row, met });
};

export const spawnCounts = {};
