// What a repository's own config file says about how git must open it, read by the rules git 2.39 applies when it
// sets up a repository (setup.c, check_repo_format: the file alone, no includes): its format version, its
// extensions, core.bare and core.worktree. Only the plain case is answered; anything else is null, and git opens
// the repository itself.

export interface RepoFormat {
  objectFormat: 'sha1' | 'sha256';
}

/** Extensions that change neither where the work tree is nor how refs are stored, as git 2.39 knows them. */
const PLAIN_EXTENSIONS = new Set(['objectformat', 'noop', 'preciousobjects', 'partialclone']);

const SECTION = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\\n]|\\.)*)")?\s*\]$/;
const ENTRY = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*([^"\\]*))?$/;

/** A line without its comment (from ; or # to its end; a section header may quote either); null: not plain. */
const contentOf = (raw: string): string | null =>
  /^\s*\[/.test(raw) ? (/^\s*(\[.*\])\s*(?:[;#].*)?$/.exec(raw)?.[1] ?? null) : raw.replace(/[;#].*$/, '').trim();

/**
 * The config's `section[.subsection].key` values, lowercased but the subsection, or null for a file with any line
 * this simple reading might take other than git does (quotes or escapes in a value, a continued line, a section
 * and a key on one line).
 */
export const plainConfig = (text: string): Map<string, string> | null => {
  const values = new Map<string, string>();
  let section: string | null = null;
  for (const raw of text.split('\n')) {
    const line = contentOf(raw);
    if (line === '') continue;
    if (line === null) return null;
    if (line.startsWith('[')) {
      const header = SECTION.exec(line);
      if (!header) return null;
      const name = (header[1] as string).toLowerCase();
      section = header[2] === undefined ? name : `${name}.${header[2]}`;
      continue;
    }
    const entry = ENTRY.exec(line);
    if (!entry || section === null) return null;
    values.set(`${section}.${(entry[1] as string).toLowerCase()}`, entry[2]?.trim() ?? 'true');
  }
  return values;
};

const FALSE = new Set(['false', 'no', 'off', '0']);

/**
 * The format of a repository whose config text this is, when git would open it as a plain work tree's
 * repository (no core.worktree, not bare, no per-worktree config, refs in files, extensions it knows); else null.
 */
export const plainRepoFormat = (text: string): RepoFormat | null => {
  // core.worktree, extensions.worktreeConfig: the work tree or its config may be elsewhere
  if (/worktree/i.test(text)) return null;
  const values = plainConfig(text);
  if (values === null) return null;
  const bare = values.get('core.bare');
  if (bare !== undefined && !FALSE.has(bare.toLowerCase())) return null;
  const version = values.get('core.repositoryformatversion') ?? '0';
  const extensions = [...values.keys()].filter((k) => k.startsWith('extensions.'));
  if (version === '0' && extensions.length === 0) return { objectFormat: 'sha1' };
  if (version !== '1') return null;
  if (!extensions.every((k) => PLAIN_EXTENSIONS.has(k.slice('extensions.'.length)))) return null;
  const format = values.get('extensions.objectformat') ?? 'sha1';
  return format === 'sha1' || format === 'sha256' ? { objectFormat: format } : null;
};
