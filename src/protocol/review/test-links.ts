// Ignored paths of the user's work tree linked into the test tree (`--link node_modules`, FETTLE_TEST_LINK), so a
// command finds the dependencies a checkout lacks. A link is a symlink to the user's own directory, not a copy:
// what the command writes through it lands there. Only paths that are not part of the tree under test can be
// linked: a link must never hide a file confirm would write.
import { lstat, mkdir, readlink, stat, symlink, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { linkPathOf, linkPathProblem, testLinksFrom, type Env } from '../../config';
import { FettleError } from '../../errors';
import type { Progress } from '../../io/progress';
import { removeTree } from '../../io/remove-tree';
import { objectsExist } from '../../store/object-read';
import type { Store } from '../../store/store';

export interface LinkRequest {
  path: string;
  /** named with --link (a missing target is an error); else from FETTLE_TEST_LINK (a missing one is skipped) */
  explicit: boolean;
}

/** The links asked for: FETTLE_TEST_LINK's paths, and those named with --link (which win: a missing one fails). */
export const linkRequests = (env: Env, explicit: string[]): LinkRequest[] => {
  const requests = new Map<string, LinkRequest>(testLinksFrom(env).map((path) => [path, { path, explicit: false }]));
  for (const raw of explicit) {
    const path = linkPathOf(raw);
    const problem = linkPathProblem(path);
    if (problem) throw new FettleError('E_USAGE', `--link ${raw}: ${problem}.`);
    requests.set(path, { path, explicit: true });
  }
  return [...requests.values()];
};

export interface Linked {
  linked: string[];
  /** FETTLE_TEST_LINK paths your work tree does not have */
  missing: string[];
}

/** The requests whose target exists in `source`; an explicit one that does not is an error. */
export const checkLinks = async (
  store: Store,
  source: string,
  tree: string,
  requests: readonly LinkRequest[],
): Promise<Linked> => {
  const linked: string[] = [];
  const missing: string[] = [];
  for (const { path, explicit } of requests) {
    if (await stat(join(source, path)).then(Boolean, () => false)) linked.push(path);
    else if (explicit)
      throw new FettleError(
        'E_USAGE',
        `--link ${path}: ${join(source, path)} does not exist, so there is nothing to link.`,
        {
          hint: 'Create it in your working tree first (for node_modules: `npm install`), or leave out that --link.',
        },
      );
    else missing.push(path);
  }
  const inTree = await objectsExist(
    store,
    linked.map((path) => `${tree}:${path}`),
  );
  const clash = linked.find((_, n) => inTree[n]);
  if (clash)
    throw new FettleError(
      'E_USAGE',
      `Cannot link ${clash} into the test tree: it is part of the tree under test (tracked, or untracked and not ignored), and a link would hide what confirm would write there.`,
      { hint: 'Link only ignored paths, such as dependency directories (node_modules, .venv).' },
    );
  return { linked, missing };
};

/** Directories between the test tree's root and `path`, made where missing; a symlink among them is refused. */
const parentIn = async (dir: string, path: string): Promise<void> => {
  const parts = path.split('/').slice(0, -1);
  for (let n = 1; n <= parts.length; n++) {
    const at = join(dir, ...parts.slice(0, n));
    const info = await lstat(at).catch(() => null);
    if (info?.isSymbolicLink() || (info && !info.isDirectory()))
      throw new FettleError(
        'E_USAGE',
        `Cannot link ${path} into the test tree: ${parts.slice(0, n).join('/')} there is not a directory.`,
      );
    if (!info) await mkdir(at);
  }
};

/**
 * Makes each link in the test tree `dir`, replacing whatever an earlier command left at its path; a link an
 * earlier run made (`before`) that this run does not ask for is removed, so the tree holds only what was asked.
 */
export const makeLinks = async (
  source: string,
  dir: string,
  paths: readonly string[],
  before: readonly string[],
  progress: Progress,
) => {
  for (const path of before.filter((p) => !paths.includes(p))) {
    const at = join(dir, path);
    if ((await lstat(at).catch(() => null))?.isSymbolicLink() && (await readlink(at)) === join(source, path))
      await unlink(at);
  }
  for (const path of paths) {
    const target = join(source, path);
    const at = join(dir, path);
    const info = await lstat(at).catch(() => null);
    if (info?.isSymbolicLink() && (await readlink(at)) === target) continue;
    if (info?.isDirectory()) {
      progress.step(`fettle: removing the ${path} an earlier command left in the test tree, to link yours`);
      await removeTree(at, (so) => progress.update(`fettle: removing ${path} from the test tree: ${so.files} files`));
      progress.done();
    } else if (info) await unlink(at);
    await parentIn(dir, path);
    await symlink(target, at);
  }
};
