// Three-way merge of one file with `git merge-file` (git 2.39 has no --object-id, so the inputs go through
// private temp files, never through the user's tree).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from './store';

export interface MergeResult {
  clean: boolean;
  conflicts: number;
  bytes: Buffer;
}

export const mergeFile = async (store: Store, current: Buffer, base: Buffer, other: Buffer): Promise<MergeResult> => {
  const dir = await mkdtemp(join(tmpdir(), 'fettle-merge-'));
  try {
    const [c, b, o] = ['current', 'base', 'other'].map((n) => join(dir, n)) as [string, string, string];
    await Promise.all([writeFile(c, current), writeFile(b, base), writeFile(o, other)]);
    // Exit code is the number of conflicts (capped at 127); negative values are errors.
    const okCodes = Array.from({ length: 127 }, (_, i) => i + 1);
    const { code, stdout } = await store.git.run({
      args: ['merge-file', '-p', '-L', 'on disk', '-L', 'recorded', '-L', 'fettle', c, b, o],
      okCodes,
    });
    return { clean: code === 0, conflicts: code, bytes: stdout };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};
