// The format of fettle's data in a store (its refs, its files under <common-dir>/fettle/), pure: the version this
// fettle writes and reads, the stamp's text, and what is said when a store is not one this fettle may touch.
// A store without a stamp holds this first format. A fettle that changes what its data means raises the number
// and stamps it before writing; an older fettle then refuses the store rather than misread it or write into it.
import { FettleError } from '../errors';

/** The store format this fettle writes, and the newest it reads. */
export const STORE_FORMAT = 1;

/** The stamp's bytes: the version in decimal, on a line of its own. */
export const stampText = (version: number = STORE_FORMAT): string => `${version}\n`;

/**
 * The version a stamp names: its first line, a positive decimal (spaces and a CR around it allowed); the lines
 * after it are left to later formats. Null when the first line is anything else, an empty file included.
 */
export const parseStamp = (text: string): number | null => {
  const first = text.split('\n', 1)[0]?.trim() ?? '';
  if (!/^[1-9][0-9]{0,8}$/.test(first)) return null;
  return Number(first);
};

/** What to upgrade, and how: ends a sentence that starts with "upgrade". */
const UPGRADE = 'fettle (`npm install -g fettle@latest`, or update the clone or plugin it runs from), then try again.';

/** `where`: whose data it is, as a sentence starts ("this repository's fettle data"). */
export const newerStore = (where: string, version: number): FettleError =>
  new FettleError(
    'E_STORE_NEWER',
    `${where} was written by a newer fettle (store format ${version}; this fettle reads up to format ${STORE_FORMAT}), so this fettle reads and changes none of it.`,
    { hint: `Upgrade ${UPGRADE}` },
  );

/** The stamp at `path` names no version: `shown` is a glimpse of what it holds, `quoted` the path for a shell. */
export const unreadableStamp = (where: string, path: string, shown: string, quoted: string): FettleError =>
  new FettleError(
    'E_STORE_FORMAT',
    `${where} is stamped with a store format fettle cannot read (${path} holds ${shown}, not a version number), so this fettle reads and changes none of it.`,
    {
      hint: `If a newer fettle wrote it, upgrade ${UPGRADE} If not, the file was damaged: put back the format this fettle writes with \`printf '${STORE_FORMAT}\\n' > ${quoted}\`.`,
    },
  );

/** What a stamp holds, for a message: JSON-quoted, at most 40 characters of it. */
export const glimpse = (text: string): string =>
  text.length === 0 ? 'nothing' : JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
