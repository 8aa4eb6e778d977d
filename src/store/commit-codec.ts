// git's commit object format, encoded in memory. The header is git's own: tree, parents, author, committer,
// then a blank line and the message as given (`git commit-tree` stores stdin verbatim too).

export interface CommitFields {
  tree: string;
  parents: string[];
  message: string;
  /** author and committer time, epoch seconds, recorded as UTC */
  seconds: number;
  /** "Name <email>" */
  identity: string;
}

const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export const encodeCommit = (c: CommitFields): Buffer => {
  // A revision expression here (`x^{tree}`) would be stored as text and make a corrupt commit: ids only.
  for (const oid of [c.tree, ...c.parents]) if (!OID.test(oid)) throw new Error(`not an object id: ${oid}`);
  if (/[<>\n]/.test(c.identity.replace(/ <[^<>\n]*>$/, ''))) throw new Error(`malformed identity: ${c.identity}`);
  const stamp = `${c.identity} ${c.seconds} +0000`;
  const header = [
    `tree ${c.tree}`,
    ...c.parents.map((p) => `parent ${p}`),
    `author ${stamp}`,
    `committer ${stamp}`,
  ].join('\n');
  return Buffer.concat([Buffer.from(`${header}\n\n`, 'utf8'), Buffer.from(c.message, 'utf8')]);
};
