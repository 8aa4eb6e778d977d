import { customAlphabet } from 'nanoid';
import { isChangeId } from '../core/record-message';

/**
 * 8 lowercase alphanumerics: 36^8 ≈ 2.8e12 ids; a collision is caught by the ref CAS and retried. Changeset ids
 * are drawn the same way: a name that is both a change and a changeset resolves as the change.
 */
export const newId = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 8);

export const isId = isChangeId;

let written = 0;

/**
 * When a record is written: its time in milliseconds and this process's count of records so far. One process
 * (a rollback of a thousand changes) writes many records in one millisecond; the count orders them, and the
 * change id breaks what is left (records of two processes in the same millisecond, which nothing orders).
 */
export const stamp = (when: Date): { time: number; seq: number } => ({ time: when.getTime(), seq: ++written });
