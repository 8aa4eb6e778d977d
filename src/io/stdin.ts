// Standard input as bytes, for every process edge (the hook, `fettle write`). Input arrives on a pipe, and reading
// the descriptor directly skips building process.stdin (~4 ms per hook call); a descriptor that would block (a
// terminal, a non-blocking pipe) is read as a stream instead.
import { readFileSync } from 'node:fs';

/** Larger input is not a payload fettle can handle (Claude Code's own limits are far below this). */
export const MAX_INPUT_BYTES = 256 * 1024 * 1024;

const tooLarge = (): Error => new Error(`the input is larger than ${MAX_INPUT_BYTES} bytes`);

export const readStdin = async (): Promise<Buffer> => {
  try {
    const bytes = readFileSync(0);
    if (bytes.length > MAX_INPUT_BYTES) throw tooLarge();
    return bytes;
  } catch (error) {
    if (!['EAGAIN', 'EWOULDBLOCK', 'EISDIR', 'EINVAL'].includes((error as NodeJS.ErrnoException).code ?? ''))
      throw error;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_INPUT_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
};
