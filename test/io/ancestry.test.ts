// The processes above one: read from /proc on Linux, from a `ps` listing elsewhere.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ancestors, chainFromPs } from '../../src/io/ancestry';

const LISTING = [
  '    1     0 /sbin/launchd',
  '  400     1 /Applications/Term.app/Contents/MacOS/Term',
  '  500   400 -zsh',
  '  600   500 claude --resume',
  '  700   600 /bin/zsh -c env -u CLAUDECODE fettle confirm abcd1234',
  '  800   700 ',
  '  900   123 orphan',
].join('\n');

test('a ps listing read as a chain, parent first, up to the first process', () => {
  assert.deepEqual(
    chainFromPs(LISTING, 700).map((p) => [p.pid, p.argv[0]]),
    [
      [700, '/bin/zsh'],
      [600, 'claude'],
      [500, '-zsh'],
      [400, '/Applications/Term.app/Contents/MacOS/Term'],
      [1, '/sbin/launchd'],
    ],
  );
});

test('a ps listing: a process without arguments, a parent not listed, a pid not listed', () => {
  assert.deepEqual(
    chainFromPs(LISTING, 800).map((p) => p.argv),
    [
      [],
      ['/bin/zsh', '-c', 'env', '-u', 'CLAUDECODE', 'fettle', 'confirm', 'abcd1234'],
      ['claude', '--resume'],
      ['-zsh'],
      ['/Applications/Term.app/Contents/MacOS/Term'],
      ['/sbin/launchd'],
    ],
  );
  assert.deepEqual(
    chainFromPs(LISTING, 900).map((p) => p.pid),
    [900],
  );
  assert.deepEqual(chainFromPs(LISTING, 4242), []);
});

test('on this system: this process, then its parent, each with its command line', () => {
  const [self, parent] = ancestors(process.pid) ?? [];
  assert.equal(self?.pid, process.pid);
  assert.equal(self?.argv[0], process.argv0);
  assert.equal(parent?.pid, process.ppid);
});

test('a platform fettle cannot list processes on says so: null', () => {
  assert.equal(ancestors(process.pid, 'win32'), null);
});
