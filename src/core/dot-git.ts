/** True when any component of `path` is a `.git` directory (case-insensitive: macOS and Windows fold case). */
export const isInsideDotGit = (path: string): boolean =>
  path.split(/[\\/]/).some((part) => part.toLowerCase() === '.git');
