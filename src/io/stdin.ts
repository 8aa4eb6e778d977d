// Standard input as bytes, for every process edge (the hook, `fettle write`). Input arrives on a pipe, and reading
// the descriptor directly skips building process.stdin (~4 ms per hook call); a descriptor that would block (a
// terminal, a non-blocking pipe) is read as a stream instead, after the bytes already read.
//
// The reads are ours, not readFileSync(0)'s: on a non-blocking descriptor readFileSync throws EAGAIN when the
// writer pauses and drops what it had read, so a script's content arriving in two parts became its second part
// (or nothing). A descriptor turns non-blocking once anything builds process.stdin over a pipe or socket.
import { readSync } from 'node:fs';

/** Larger input is not a payload fettle can handle (Claude Code's own limits are far below this). */
export const MAX_INPUT_BYTES = 256 * 1024 * 1024;

const tooLarge = (): Error => new Error(`the input is larger than ${MAX_INPUT_BYTES} bytes`);

/** The descriptor cannot be read synchronously (now, or at all): the rest comes from the stream. */
const STREAM_ONLY = ['EAGAIN', 'EWOULDBLOCK', 'EISDIR', 'EINVAL'];

export const readStdin = async (): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  let size = 0;
  const add = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > MAX_INPUT_BYTES) throw tooLarge();
    chunks.push(chunk);
  };
  const buffer = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buffer, 0, buffer.length, null);
    } catch (error) {
      if (STREAM_ONLY.includes((error as NodeJS.ErrnoException).code ?? '')) break;
      throw error;
    }
    if (n === 0) return Buffer.concat(chunks);
    add(Buffer.from(buffer.subarray(0, n)));
  }
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) add(chunk);
  return Buffer.concat(chunks);
};
