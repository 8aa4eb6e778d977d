// Long output for a person, through a pager on a terminal, as git does: $PAGER, else `less -FRX` (one screen
// prints and exits, colours pass through, the screen is not cleared). Never a pager named in the repository's
// config (core.pager): fettle runs in repositories it did not write, and a config that runs a program is code.
import { spawnSync } from 'node:child_process';
import type { Env } from '../config';

export const page = (text: string, env: Env, out: (text: string) => void): void => {
  const pager = env.PAGER === undefined ? 'less' : env.PAGER.trim();
  if (pager === '' || pager === 'cat') {
    out(text);
    return;
  }
  const body = text.endsWith('\n') ? text : `${text}\n`;
  const r = spawnSync('sh', ['-c', pager], {
    input: body,
    stdio: ['pipe', 'inherit', 'inherit'],
    env: { ...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c' },
  });
  // A pager that could not start (not installed) must not lose the output.
  if (r.error || r.status === 127) out(text);
};
