// Command-line options and the sizes they select.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const DIST = join(ROOT, 'dist');

const usage = () => {
  process.stderr.write(
    'usage: node bench/run.mjs [--quick] [--json] [--runs N] [--cases 0,1,2,...,bash,commit,page,resident,thin,share,storage,reads] [--keep] [--keep-ca-certs] [--baseline-dist DIR]\n',
  );
  process.exit(2);
};

const argv = process.argv.slice(2);
export const opts = {
  quick: false,
  json: false,
  runs: undefined,
  cases: null,
  keep: false,
  keepCaCerts: false,
  baselineDist: null,
};
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--quick') opts.quick = true;
  else if (a === '--json') opts.json = true;
  else if (a === '--keep') opts.keep = true;
  else if (a === '--keep-ca-certs') opts.keepCaCerts = true;
  else if (a === '--runs' || a.startsWith('--runs=')) {
    const v = a.includes('=') ? a.slice(7) : argv[++i];
    opts.runs = Number(v);
    if (!Number.isInteger(opts.runs) || opts.runs < 1) usage();
  } else if (a === '--cases' || a.startsWith('--cases=')) {
    const v = a.includes('=') ? a.slice(8) : argv[++i];
    opts.cases = new Set(
      String(v ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
  } else if (a === '--baseline-dist' || a.startsWith('--baseline-dist=')) {
    opts.baselineDist = a.includes('=') ? a.slice(16) : argv[++i];
    if (!opts.baselineDist) usage();
  } else if (a === '--help' || a === '-h') usage();
  else usage();
}

export const SIZES = opts.quick
  ? {
      files: 60,
      small: 20,
      big: 300,
      shadow: 200,
      bigFile: 500_000,
      history: 20,
      pending: 5,
      rollback: 40,
      testTree: 300,
      bash: [20, 100, 300],
      runs: 2,
      memRuns: 1,
      pageHunks: 50,
      pageRuns: 2,
    }
  : {
      files: 1_000,
      small: 100,
      big: 100_000,
      shadow: 50_000,
      bigFile: 5_000_000,
      history: 1_000,
      pending: 50,
      rollback: 1_000,
      testTree: 30_000,
      bash: [100, 10_000, 100_000],
      runs: 15,
      memRuns: 3,
      pageHunks: 500,
      pageRuns: 7,
    };
export const RUNS = opts.runs ?? SIZES.runs;
export const want = (id) => !opts.cases || opts.cases.has(String(id));

/** Any single process that takes longer than this is killed and reported: the harness never hangs. */
export const PROCESS_TIMEOUT_MS = 120_000;
/** The 5 MB full rewrite must answer within this (issue, case 5), and is killed after HANG_MS. */
export const REWRITE_LIMIT_MS = 2_000;
export const HANG_MS = 30_000;
