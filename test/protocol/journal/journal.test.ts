// The confirm journal, in process against a real repository: written durably under a new name, read back, and
// recovered: one cut short by a crash (it does not parse) means no file was replaced, and is dropped.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { findJournals, journalDir, writeJournal, type Journal } from '../../../src/protocol/journal/journal';
import { recoverInterrupted } from '../../../src/protocol/journal/recover';
import { openStoreAt } from '../../../src/store/locate';
import { makeRepo } from '../../helpers/repo';

const openStore = async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  return openStoreAt(repo.dir, repo.env, join(repo.home, 'data'));
};
const DEAD = 2 ** 22 + 12_345;
const journal = (pid: number): Journal => ({
  version: 1,
  op: 'confirm',
  pid,
  started: 0,
  files: [],
  refs: [],
  drop: [],
});

test('a journal is read back as written; one of a live process is left alone by recovery', async () => {
  const store = await openStore();
  const path = await writeJournal(store, journal(process.pid));
  assert.match(path, new RegExp(`/confirm-${process.pid}-[0-9a-f]{8}\\.json$`));
  assert.deepEqual(await findJournals(store), [{ path, pid: process.pid, journal: journal(process.pid) }]);
  assert.deepEqual(await recoverInterrupted(store), []);
  assert.ok(existsSync(path));
});

test('a journal cut short by a crash is dropped by recovery: nothing had been replaced', async () => {
  const store = await openStore();
  const path = await writeJournal(store, journal(DEAD));
  writeFileSync(path, '{"version":1,"op":"confirm","files":[{"id"');
  assert.equal((await findJournals(store))[0]?.journal, null);
  const [r] = await recoverInterrupted(store);
  assert.equal(r?.outcome, 'empty');
  assert.deepEqual(readdirSync(journalDir(store)), []);
});

test('no journal directory: recovery reads one directory and does nothing', async () => {
  const store = await openStore();
  assert.deepEqual(await recoverInterrupted(store), []);
  assert.equal(existsSync(journalDir(store)), false);
});
