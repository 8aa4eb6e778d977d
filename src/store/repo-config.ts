// The few settings of a repository's own config file that decide how fettle may write its objects, read from
// the file (no git process on the hook path). Only the repository's file: `extensions.*` count only there (git
// ignores them elsewhere), and pack.compression / core.compression, core.logAllRefUpdates and
// core.sharedRepository set in a user's global config are not seen (documented: objects are valid at any level,
// though a roll-up copies the bytes of objects it does not deltify as they are; and fettle's own fresh refs then
// get no reflog, and the permissions the umask gives).
import { fileStamp as stampOf } from '../io/exists';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface ObjectWriting {
  /**
   * zlib level for the objects fettle packs (pack.compression, else core.compression, else 1: fast; a roll-up
   * copies the bytes of objects it does not deltify as they are)
   */
  level: number;
  /**
   * zlib level for trees: the configured level, else 0 (stored). A tree is mostly object ids, which do not
   * compress (a 1,000-entry tree: 32 KB, 25 KB at level 1), and deflating it cost a quarter of a millisecond on
   * every write in a large repository. A roll-up stores consecutive versions of a tree as deltas (compressed);
   * the tree it keeps whole stays stored, which the storage case measures (docs/PERFORMANCE.md).
   */
  treeLevel: number;
  /** an extension that changes how objects must be written, which fettle's writer does not implement */
  unsupported: string | undefined;
  /**
   * Why a new ref must be created by `git update-ref` rather than by fettle's own files-backend writer
   * (ref-create.ts), or undefined when fettle may write it: another ref storage, reflogs kept for every ref,
   * or permissions git adjusts for a shared repository.
   */
  refsThroughGit: string | undefined;
}

/** Extensions that leave loose objects as fettle writes them (hash from the object format the probe reports). */
const WRITER_SAFE = new Set([
  'noop',
  'noop-v1',
  'objectformat',
  'partialclone',
  'preciousobjects',
  'refstorage',
  'worktreeconfig',
]);

/** Pure: the settings from the text of a git config file (sections, subsections and keys as git folds them). */
export const objectWritingFrom = (text: string): ObjectWriting => {
  let section = '';
  const values = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[;#].*$/, '').trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]$/.exec(line);
    if (header) {
      section = (header[1] as string).toLowerCase();
      continue;
    }
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (entry && section) values.set(`${section}.${(entry[1] as string).toLowerCase()}`, entry[2]?.trim() ?? 'true');
  }
  const level = (key: string): number | undefined => {
    const n = Number(values.get(key));
    if (!values.has(key) || !Number.isInteger(n)) return undefined;
    return n === -1 ? 6 : n >= 0 && n <= 9 ? n : undefined;
  };
  const version = Number(values.get('core.repositoryformatversion') ?? '0');
  const unsupported =
    version >= 1
      ? [...values.keys()]
          .filter((k) => k.startsWith('extensions.'))
          .map((k) => k.slice('extensions.'.length))
          .find((name) => !WRITER_SAFE.has(name))
      : undefined;
  const storage = values.get('extensions.refstorage');
  const shared = values.get('core.sharedrepository')?.toLowerCase();
  const refsThroughGit =
    storage !== undefined && storage.toLowerCase() !== 'files'
      ? `extensions.refStorage=${storage}`
      : values.get('core.logallrefupdates')?.toLowerCase() === 'always'
        ? 'core.logAllRefUpdates=always'
        : shared !== undefined && !['false', 'umask', 'no', 'off', '0'].includes(shared)
          ? `core.sharedRepository=${shared}`
          : undefined;
  const configured = level('pack.compression') ?? level('core.compression');
  return {
    level: configured ?? 1,
    treeLevel: configured ?? 0,
    unsupported,
    refsThroughGit,
  };
};

const cache = new Map<string, { stamp: string; writing: Promise<ObjectWriting> }>();

/** Read once per repository, and again when its config file changed. */
export const objectWritingOf = async (commonDir: string): Promise<ObjectWriting> => {
  const path = join(commonDir, 'config');
  const stamp = stampOf(path);
  const known = cache.get(commonDir);
  if (known?.stamp === stamp) return known.writing;
  const writing = readFile(path, 'utf8').then(objectWritingFrom, () => objectWritingFrom(''));
  cache.set(commonDir, { stamp, writing });
  return writing;
};
