// Whether a path exists (anything at it, symlinks followed): a question several layers ask before acting.
import { stat } from 'node:fs/promises';

export const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );
