import { customAlphabet } from 'nanoid';

/** 8 lowercase alphanumerics: 36^8 ≈ 2.8e12 ids; a collision is caught by the ref CAS and retried. */
export const newId = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 8);

export const isId = (value: string): boolean => /^[0-9a-z]{8}$/.test(value);
