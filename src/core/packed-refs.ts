// git's `packed-refs` file, as its files ref backend reads and writes it (git's refs/packed-backend.c): an
// optional header `# pack-refs with:` and space-separated traits, then one `<oid> SP <refname> LF` record per
// ref, each optionally followed by a `^<peeled oid> LF` line. Traits: `sorted` (records are in refname byte
// order), `peeled` / `fully-peeled` (a ref without a `^` line does not peel to anything else). Text here is
// the file's bytes read as latin1, one character per byte, so records are kept byte for byte and `<` on two
// names compares their bytes as git's strcmp does.

/** The header git writes. fettle writes it only into a file it creates, where every ref points at a commit. */
export const PACKED_REFS_HEADER = '# pack-refs with: peeled fully-peeled sorted \n';

export interface PackedRecord {
  name: string;
  oid: string;
  /** the record's lines as read (with its `^` line, if any) */
  text: string;
}

export interface PackedRefs {
  /** the header line with its LF; null when the file has none */
  header: string | null;
  sorted: boolean;
  records: PackedRecord[];
}

const RECORD = /^([0-9a-f]{40}|[0-9a-f]{64}) ([^\n]+)$/;
const PEELED = /^\^([0-9a-f]{40}|[0-9a-f]{64})$/;

/** The file's records; null for anything git would not read as a packed-refs file (it is then left alone). */
export const parsePackedRefs = (text: string): PackedRefs | null => {
  if (text === '') return { header: null, sorted: false, records: [] };
  if (!text.endsWith('\n')) return null;
  const lines = text.slice(0, -1).split('\n');
  let header: string | null = null;
  let sorted = false;
  if (lines[0]?.startsWith('#')) {
    const first = lines.shift() as string;
    if (!first.startsWith('# pack-refs with:')) return null;
    header = `${first}\n`;
    sorted = first.slice('# pack-refs with:'.length).split(' ').includes('sorted');
  }
  const records: PackedRecord[] = [];
  for (const line of lines) {
    const last = records[records.length - 1];
    if (line.startsWith('^') && PEELED.test(line) && last && !last.text.includes('\n^')) {
      last.text += `${line}\n`;
      continue;
    }
    const m = RECORD.exec(line);
    if (!m) return null;
    records.push({ oid: m[1] as string, name: m[2] as string, text: `${line}\n` });
  }
  return { header, sorted, records };
};

/**
 * The file with `refs` (name -> oid, each pointing at a commit: no `^` line) added or replaced, every other
 * record's bytes kept as they were. A sorted file stays sorted; an unsorted one keeps its order and gets new
 * records at its end; a file with no records is written with git's header.
 */
export const withRefs = (packed: PackedRefs, refs: ReadonlyMap<string, string>): string => {
  const record = (name: string, oid: string): PackedRecord => ({ name, oid, text: `${oid} ${name}\n` });
  const kept = packed.records.map((r) => {
    const oid = refs.get(r.name);
    return oid === undefined ? r : record(r.name, oid);
  });
  const known = new Set(packed.records.map((r) => r.name));
  const added = [...refs].filter(([name]) => !known.has(name)).map(([name, oid]) => record(name, oid));
  const fresh = packed.records.length === 0 && packed.header === null;
  const header = fresh ? PACKED_REFS_HEADER : (packed.header ?? '');
  const byName = (a: PackedRecord, b: PackedRecord) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const records = fresh || packed.sorted ? merge(kept, added.sort(byName), byName) : [...kept, ...added];
  return header + records.map((r) => r.text).join('');
};

/** Two lists each in order, merged in order; on a tie the first list's record comes first. */
const merge = <T>(a: T[], b: T[], cmp: (x: T, y: T) => number): T[] => {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && cmp(a[i] as T, b[j] as T) <= 0)) out.push(a[i++] as T);
    else out.push(b[j++] as T);
  }
  return out;
};
