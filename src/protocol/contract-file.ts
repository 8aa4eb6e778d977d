// A contract file on disk: read as bytes, in its Markdown form when it is named *.md or *.markdown, else as JSON,
// and hashed (core/contract.ts). Every change a contract stages records the hash and the file's real path, and
// `fettle confirm` reads the file again: one that no longer hashes the same (edited after the review, removed, or
// no longer valid) refuses the confirm, so what is applied is what the person reviewed.
import { isUtf8 } from 'node:buffer';
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { contractHash, parseContractJson, type Contract } from '../core/contract';
import { parseContractMarkdown } from '../core/contract-markdown';
import type { RecordFields } from '../core/record-message';
import { FettleError } from '../errors';
import { readUserFile } from './read';

export interface ContractFile {
  /** as the command line gave it (how messages name it) */
  source: string;
  /** the real path, as records keep it */
  path: string;
  contract: Contract;
  /** `sha256:<hex>` of its canonical form */
  hash: string;
}

const isMarkdown = (path: string): boolean => /\.(md|markdown)$/i.test(path);

const parse = (bytes: Buffer, path: string, source: string): Contract => {
  if (!isUtf8(bytes))
    throw new FettleError('E_CONTRACT', `${source} is not a valid fettle contract: it is not UTF-8 text.`);
  const text = bytes.toString('utf8');
  return isMarkdown(path) ? parseContractMarkdown(text, source) : parseContractJson(text, source);
};

/** The contract at `given` (relative to `cwd`), parsed and hashed. */
export const readContract = async (cwd: string, given: string): Promise<ContractFile> => {
  const path = resolve(cwd, given);
  const bytes = await readUserFile(path);
  if (bytes === null)
    throw new FettleError('E_USAGE', `${given}: no such contract file.`, {
      hint: 'Name a contract file: JSON, or Markdown (*.md) with fenced blocks; see `fettle apply --help`.',
    });
  const contract = parse(bytes, path, given);
  return { source: given, path: await realpath(path), contract, hash: contractHash(contract) };
};

/** Whether a change's contract file still is what was staged: 'same', or why not. */
export const contractNow = async (
  fields: Pick<RecordFields, 'contract' | 'contractPath'>,
): Promise<'same' | 'changed' | 'gone' | 'invalid'> => {
  const path = fields.contractPath;
  if (!path) return 'gone';
  const bytes = await readUserFile(path).catch(() => null);
  if (bytes === null) return 'gone';
  try {
    return contractHash(parse(bytes, path, path)) === fields.contract ? 'same' : 'changed';
  } catch {
    return 'invalid';
  }
};

const WHY = {
  changed: 'was edited after it was staged',
  gone: 'is gone',
  invalid: 'is no longer a valid contract',
} as const;

/**
 * Refuses a change whose contract file no longer hashes to what was staged. `seen` caches each file's state for
 * the members of one changeset.
 */
export const requireContract = async (
  change: { id: string; fields: RecordFields },
  seen: Map<string, Awaited<ReturnType<typeof contractNow>>>,
): Promise<void> => {
  const { contract, contractPath = '' } = change.fields;
  if (!contract) return;
  const key = `${contractPath}\0${contract}`;
  const known = seen.get(key);
  const state = known ?? (await contractNow(change.fields));
  seen.set(key, state);
  if (state === 'same') return;
  // The contract is named once; the other changes it staged are refused in a few words.
  if (known !== undefined)
    throw new FettleError('E_CONTRACT', `Change ${change.id} (${change.fields.path}) is from the same contract.`);
  const set = change.fields.changeset ?? change.id;
  throw new FettleError(
    'E_CONTRACT',
    `The contract ${contractPath} ${WHY[state]}, so change ${change.id} (${change.fields.path}) is not what was reviewed; nothing was written.`,
    {
      hint: `Apply the contract as it is now instead: \`fettle discard ${set}\`, then \`fettle apply ${contractPath}\` and review the new changeset.`,
    },
  );
};
