// jsdiff against fettle's timeout and git fallback.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runNode, script } from './child-scripts.mjs';
import { PROJECT, QUICK } from './options.mjs';

export const jsdiffCheck = async (diffPath, repo) => {
  const timeout = Number(
    /DIFF_TIMEOUT_MS = (\d+)/.exec(readFileSync(join(PROJECT, 'src', 'core', 'diff.ts'), 'utf8'))?.[1] ?? 300,
  );
  const sizes = QUICK ? [250, 500, 1000] : [1000, 2000, 4000];
  const big = QUICK ? 4000 : 20000;
  const cases = [
    ...sizes.map((n) => ({ lines: n, mode: 'rewrite', timeout: 'none' })),
    { lines: sizes[sizes.length - 1], mode: 'onepercent', timeout: 'none' },
    { lines: big, mode: 'onepercent', timeout: 'none' },
    { lines: big, mode: 'rewrite', timeout: String(timeout) },
  ];
  const rows = [];
  for (const c of cases) {
    const { ms, result } = await runNode([script('jsdiffCase'), diffPath, String(c.lines), c.mode, c.timeout]);
    rows.push({
      tool: 'jsdiff structuredPatch',
      ...c,
      inProcessMs: result.ms,
      processMs: Math.round(ms),
      result: result.result,
    });
  }
  for (const mode of ['rewrite', 'onepercent']) {
    const { ms, result } = await runNode([script('gitDiffCase'), repo, String(big), mode]);
    rows.push({
      tool: 'git hash-object x2 + git diff',
      lines: big,
      mode,
      timeout: 'none',
      inProcessMs: result.ms,
      processMs: Math.round(ms),
      result: result.result,
    });
  }
  return { fettleTimeoutMs: timeout, rows };
};
