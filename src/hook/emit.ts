// Writing a hook's answer, for the hook process (process.ts) and the thin hook that prints a server's
// (thin.ts): one copy, small, since the thin hook's entry loads nothing else of the hook.
import { writeSync } from 'node:fs';

/** Written straight to the descriptor, as stdin is read (io/stdin.ts); a descriptor that would block gets the stream. */
export const emit = (fd: 1 | 2, text: string): void => {
  const bytes = Buffer.from(text, 'utf8');
  let done = 0;
  try {
    while (done < bytes.length) done += writeSync(fd, bytes, done);
  } catch (error) {
    if (!['EAGAIN', 'EWOULDBLOCK'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    (fd === 1 ? process.stdout : process.stderr).write(bytes.subarray(done));
  }
};
