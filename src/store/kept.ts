// One git process kept running for the resident server (resident.ts): fed requests one at a time, each answer
// cut from its stdout by the request's parser (kept-answers.ts). A process that exits fails the request it was
// answering with git's own words, and any request that finds it gone before being sent (Gone) may be asked of a
// fresh one.
import type { Conversation, GitRunner } from './git';

/** How many bytes an answer needs: done at `n`, or wait until at least `need` bytes are in. */
export type Parse = (buf: Buffer) => { done: number } | { need: number };

/** The kept process was gone before this request was sent: nothing happened, a fresh one may be asked. */
export class Gone extends Error {}

/** A git process fed requests one at a time; each answer is cut from its stdout by the request's parser. */
export class Kept {
  used = Date.now();
  dead = false;
  /** requests sent or waiting their turn: a busy process is never idle */
  pending = 0;
  private readonly conv: Conversation;
  private chunks: Buffer[] = [];
  private size = 0;
  private need = 1;
  private current: { parse: Parse; resolve: (b: Buffer) => void; reject: (e: unknown) => void } | null = null;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(base: GitRunner, args: readonly string[]) {
    this.conv = base.start(args, (chunk) => this.take(chunk));
    void this.conv.closed.then(() => this.ended());
  }

  private take(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    this.settle();
  }

  private settle(): void {
    if (!this.current || this.size < this.need) return;
    const buf = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    this.chunks = [buf];
    const step = this.current.parse(buf);
    if ('need' in step) {
      this.need = step.need;
      return;
    }
    const { resolve } = this.current;
    this.current = null;
    this.need = 1;
    this.chunks = [buf.subarray(step.done)];
    this.size -= step.done;
    resolve(buf.subarray(0, step.done));
  }

  private async ended(): Promise<void> {
    this.dead = true;
    const waiting = this.current;
    this.current = null;
    if (!waiting) return;
    // git's own words: finish() rejects with them, as a failed one-off run does.
    await this.conv.finish().then(
      () => waiting.reject(new Error('git exited before answering')),
      (error: unknown) => waiting.reject(error),
    );
  }

  /** Sends `input`; resolves with the bytes `parse` says are the answer. Rejects if git exits first. */
  ask(input: string, parse: Parse): Promise<Buffer> {
    this.pending++;
    const turn = this.tail.then(
      () =>
        new Promise<Buffer>((resolve, reject) => {
          if (this.dead) return reject(new Gone('git exited'));
          this.used = Date.now();
          this.current = { parse, resolve, reject };
          this.need = 1;
          this.conv.write(input);
          this.settle();
        }),
    );
    const done = turn.finally(() => {
      this.pending--;
      this.used = Date.now();
    });
    this.tail = done.catch(() => undefined);
    return done;
  }

  close(): void {
    this.dead = true;
    void this.conv.finish().catch(() => undefined);
  }
}
