// Files of kernel pseudo-filesystems are views of live state, not content a person wrote: /proc/self/environ
// holds the hook's own environment (API keys included), /sys and /dev expose devices. Their "previous bytes"
// are not fettle's to record, and a read of one may never end. Checked by filesystem type (statfs), which also
// catches a procfs mounted elsewhere; /dev is devtmpfs, which reports tmpfs's magic, so it is named by path.
import { statfsSync } from 'node:fs';
import { dirname, sep } from 'node:path';

/** statfs(2) magic numbers of Linux pseudo-filesystems (linux/magic.h). */
const PSEUDO: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x1cd1, 'devpts'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x73636673, 'securityfs'],
  [0x6165676c, 'pstore'],
  [0xcafe4a11, 'bpf'],
  [0x62656570, 'configfs'],
  [0x65735543, 'fusectl'],
  [0x42494e4d, 'binfmt_misc'],
  [0xde5e81e4, 'efivarfs'],
]);

const DEVICE_TREE = `${sep}dev${sep}`;

/**
 * The pseudo-filesystem `realPath` lies on (by name), or null for an ordinary file. A path that does not exist
 * yet is judged by its directory; one whose directory is missing too is ordinary (nothing to read there).
 */
export const pseudoFilesystemOf = async (realPath: string): Promise<string | null> => {
  if (realPath.startsWith(DEVICE_TREE)) return 'devtmpfs';
  for (const path of [realPath, dirname(realPath)]) {
    try {
      return PSEUDO.get(statfsSync(path).type) ?? null;
    } catch {
      // absent: try its directory
    }
  }
  return null;
};
