// The link from a tool call's before record to its after, in process against a real repository's git dir.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  claimLink,
  digest,
  linksDir,
  openLinks,
  rememberWrite,
  claimWrite,
  type PendingWrite,
} from '../../../src/protocol/record/call-links';
import { openStoreAt } from '../../../src/store/locate';
import type { Store } from '../../../src/store/store';
import { makeRepo } from '../../helpers/repo';

const openStore = async () => {
  const repo = makeRepo({ 'a.txt': 'a' });
  return openStoreAt(repo.dir, repo.env, join(repo.home, 'data'));
};
const pending = (id: string, session?: string): PendingWrite => ({
  id,
  file: `/r/${id}.txt`,
  fields: {
    id,
    kind: 'before',
    tier: 'direct',
    path: `${id}.txt`,
    file: `/r/${id}.txt`,
    ...(session ? { session } : {}),
  },
});

/** Claims the write of this tool call and releases its link at once: what PostToolUse does once it recorded. */
const takeWrite = async (store: Store, toolUseId: string) => {
  const claimed = await claimWrite(store, toolUseId);
  await claimed?.release();
  return claimed?.pending ?? null;
};

test('a remembered write is taken once, by its tool_use_id', async () => {
  const store = await openStore();
  await rememberWrite(store, 'toolu_1', pending('aaaa0001'));
  assert.equal(await takeWrite(store, 'toolu_2'), null);
  assert.deepEqual(await takeWrite(store, 'toolu_1'), pending('aaaa0001'));
  assert.equal(await takeWrite(store, 'toolu_1'), null);
  assert.deepEqual(readdirSync(linksDir(store.commonDir)), []);
});

test('a claimed write stays claimed until released: a process killed before it recorded leaves it to settle', async () => {
  const store = await openStore();
  await rememberWrite(store, 'toolu_1', pending('aaaa0001'));
  const claimed = await claimWrite(store, 'toolu_1');
  assert.ok(claimed);
  const names = readdirSync(linksDir(store.commonDir));
  assert.equal(names.length, 1);
  assert.match(names[0] ?? '', new RegExp(`\\.${process.pid}\\.[0-9a-f]+\\.taken$`), 'claimed under this process');
  await claimed.release();
  assert.deepEqual(readdirSync(linksDir(store.commonDir)), []);
});

test('of many processes claiming one link, exactly one gets it', async () => {
  const store = await openStore();
  await rememberWrite(store, 'toolu_1', pending('aaaa0001'));
  const [path] = (await openLinks(linksDir(store.commonDir))).map((l) => l.path);
  assert.ok(path);
  const claims = await Promise.all(Array.from({ length: 8 }, () => claimLink(path)));
  assert.equal(claims.filter((c) => c !== null).length, 1);
});

test('a claim that fails to settle is put back for the next try', async () => {
  const store = await openStore();
  await rememberWrite(store, 'toolu_1', pending('aaaa0001'));
  const [link] = await openLinks(linksDir(store.commonDir));
  const claimed = await claimLink(link?.path ?? '');
  assert.equal((await openLinks(linksDir(store.commonDir))).length, 0);
  await claimed?.restore();
  assert.deepEqual(await takeWrite(store, 'toolu_1'), pending('aaaa0001'));
});

test('open links: by session, foreign files skipped, a dead process`s claim open again', async () => {
  const store = await openStore();
  const dir = linksDir(store.commonDir);
  await rememberWrite(store, 'toolu_1', pending('aaaa0001', 's1'));
  await rememberWrite(store, 'toolu_2', pending('aaaa0002', 's2'));
  await rememberWrite(store, 'toolu_3', pending('aaaa0003', 's1'));
  writeFileSync(join(dir, 'foreign.json'), '{"not":"a link"}');
  writeFileSync(join(dir, 'broken.json'), '{');
  // A process that took toolu_3's link and died: its name carries the dead pid.
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  const [third] = (await openLinks(dir)).filter((l) => l.pending.id === 'aaaa0003');
  assert.ok(third);
  renameSync(third.path, `${third.path}.${dead}.abcd1234.taken`);
  const ids = async (session?: string) => (await openLinks(dir, session)).map((l) => l.pending.id).sort();
  assert.deepEqual(await ids(), ['aaaa0001', 'aaaa0002', 'aaaa0003']);
  assert.deepEqual(await ids('s1'), ['aaaa0001', 'aaaa0003']);
  assert.deepEqual(await ids('none'), []);
});

test('no links folder: no open links', async () =>
  assert.deepEqual(await openLinks('/nonexistent/fettle/tool-use'), []));

test('digest: the bytes, but for a span the tool fills at random, which only has to be there at the same length', () => {
  assert.equal(digest(Buffer.from('a')), digest(Buffer.from('a')));
  assert.notEqual(digest(Buffer.from('a')), digest(Buffer.from('b')));
  // A notebook's layout counts now: fettle predicts the client's JSON byte for byte.
  const cells = { cells: [{ cell_type: 'code', source: 'x = 1\n', metadata: {} }] };
  assert.notEqual(digest(Buffer.from(JSON.stringify(cells))), digest(Buffer.from(JSON.stringify(cells, null, 1))));
  const span: [number, number] = [8, 16];
  const ours = Buffer.from('{"id": "0123abcd", "x": 1}');
  assert.equal(digest(ours, span), digest(Buffer.from('{"id": "ffff9999", "x": 1}'), span));
  assert.notEqual(digest(ours, span), digest(Buffer.from('{"id": "ffff9999", "x": 2}'), span));
  assert.notEqual(digest(ours, span), digest(Buffer.from('{"id": "ff"}'), span));
});
