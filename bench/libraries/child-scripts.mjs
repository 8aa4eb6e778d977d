// Child programs: each is written to DEPS as a small .cjs (so require() finds the temp node_modules) and run
// as a fresh `node` process. They print one JSON line.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { diffTexts, gitDiffCase, jsdiffCase } from './children/diffs.mjs';
import { snapFettleRecipe } from './children/fettle-recipe.mjs';
import { cpRunner, fail, out, snapshotContent, textPlumbing } from './children/helpers.mjs';
import { emptyScript, importOnly } from './children/imports.mjs';
import { raceGit, raceIso } from './children/race.mjs';
import { simpleGitChecks } from './children/simple-git-checks.mjs';
import { snapCp, snapIso, snapSimpleGit } from './children/snapshots.mjs';
import { worktreeIso, worktreeSimpleGit } from './children/worktree.mjs';
import { DEPS, run } from './env.mjs';

const HELPERS = [snapshotContent, out, fail, cpRunner, textPlumbing, diffTexts];
const CHILDREN = {
  snapCp,
  snapSimpleGit,
  snapIso,
  snapFettleRecipe,
  emptyScript,
  importOnly,
  jsdiffCase,
  gitDiffCase,
  raceIso,
  raceGit,
  worktreeIso,
  worktreeSimpleGit,
  simpleGitChecks,
};
export const script = (name) => join(DEPS, `${name}.cjs`);
export const writeChildren = () => {
  const helpers = HELPERS.map((f) => f.toString()).join('\n');
  for (const [name, fn] of Object.entries(CHILDREN))
    writeFileSync(script(name), `'use strict';\n${helpers}\n(${fn.toString()})();\n`);
};

/** Runs a child to completion; returns wall time (ms, spawn to exit, as a hook caller sees it) and its JSON. */
export const runNode = async (args) => {
  const r = await run(process.execPath, args, { cwd: DEPS });
  if (r.code !== 0) throw new Error(`node ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  const line = r.stdout.toString().trim().split('\n').pop();
  return { ms: r.ms, result: line ? JSON.parse(line) : {} };
};
