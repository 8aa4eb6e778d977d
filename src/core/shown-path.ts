// How a recorded file's path is shown to a person: its path in the repository; for a file outside any repository
// (fettle's private store, whose tree is rooted at /), its absolute path, which the tree path is without the
// leading '/'. JSON keeps the tree path as `path` and the absolute one as `file`.

/** `path`: the tree path recorded; `file`: the absolute path on disk. */
export const shownPath = (path: string, file: string): string => (file === `/${path}` ? file : path);

/** A record's file (its fields, or a row of them): `path` in its tree, `file` on disk. */
export const shownFile = (f: { path: string; file: string }): string => shownPath(f.path, f.file);

/** A file about to be written (a store's target: its tree path and its path on disk). */
export const shownTarget = (t: { treePath: string; realPath: string }): string => shownPath(t.treePath, t.realPath);
