// Standard input read in a real child process, the way a hook or `fettle write` receives it: a pipe whose writer
// may pause, and a descriptor that something already made non-blocking by building process.stdin.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';

const SOURCE = JSON.stringify(join(process.cwd(), 'src/io/stdin.ts'));

/**
 * What the child read of `parts`, after its process.stdin was (or was not) built first. The first part is in the
 * pipe before the child reads; the rest follow, `pauseMs` apart, once the child says it is about to read, so its
 * first read finds the first part and its second an empty pipe.
 */
const readInChild = (parts: Buffer[], o: { touchStdin: boolean; pauseMs: number }): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const script = `${o.touchStdin ? 'void process.stdin.isTTY;' : ''}
      const { readStdin } = require(${SOURCE});
      process.stderr.write('reading');
      readStdin().then((b) => process.stdout.write(b.toString('hex')));`;
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: 'pipe' });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(Buffer.from(Buffer.concat(out).toString(), 'hex')) : reject(new Error(`exit ${code}`)),
    );
    const send = (i: number): void => {
      if (i >= parts.length) return void child.stdin.end();
      child.stdin.write(parts[i] as Buffer);
      setTimeout(() => send(i + 1), o.pauseMs);
    };
    if (parts.length) child.stdin.write(parts[0] as Buffer);
    child.stderr.once('data', () => setTimeout(() => send(1), o.pauseMs));
    if (!parts.length) child.stdin.end();
  });

const PARTS = [Buffer.from('first part\n'), Buffer.from([0, 255, 10]), Buffer.from('last\n')];

const cases: [string, { touchStdin: boolean; pauseMs: number }][] = [
  ['a blocking pipe whose writer pauses', { touchStdin: false, pauseMs: 300 }],
  ['a non-blocking pipe whose writer pauses (regression: lost the first part)', { touchStdin: true, pauseMs: 300 }],
  ['a non-blocking pipe written at once', { touchStdin: true, pauseMs: 0 }],
];
for (const [name, o] of cases)
  test(`every byte of ${name}`, async () => {
    assert.deepEqual(await readInChild(PARTS, o), Buffer.concat(PARTS));
  });

test('an empty pipe is empty input, not an error', async () => {
  assert.deepEqual(await readInChild([], { touchStdin: true, pauseMs: 0 }), Buffer.alloc(0));
});
