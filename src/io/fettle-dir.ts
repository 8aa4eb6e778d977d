// Directories fettle makes for itself (its folder in a git dir, the private store outside repositories). They
// hold old bytes, hidden worktrees and the paths of files written, so they are the user's alone, unless the
// directory they are made in is shared with a group (core.sharedRepository=group makes git dirs group-writable
// and setgid): then the group keeps the access git gives it, and no one else has any.
import { chmod, mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

const SHARED = 0o2770;
const PRIVATE = 0o700;

/** `mkdir -p path`; every directory it creates gets PRIVATE, or SHARED under a group-writable parent. */
export const makeOwnDir = async (path: string): Promise<void> => {
  const first = await mkdir(path, { recursive: true });
  if (first === undefined) return;
  const parent = await stat(dirname(first));
  const mode = parent.mode & 0o020 ? SHARED : PRIVATE;
  for (let dir = path; dir.length >= first.length; dir = dirname(dir)) await chmod(dir, mode);
};
