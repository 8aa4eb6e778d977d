// What `fettle apply` (and the MCP tool) answer for a contract whose context proved insufficient under
// `"fallback": "report"`: the report as data for the planner that wrote the contract, and as text for a person.
import type { MissingContext } from '../core/contract-report';

interface Insufficient {
  contract: { path: string; hash: string };
  missing?: MissingContext[] | undefined;
  reasons?: string[] | undefined;
  /** what became of the failure's record (protocol/record/failed.ts) */
  recorded?: string | undefined;
}

/** The report, versioned by its `kind`: stable keys, null for what does not apply. */
export const insufficientJson = (a: Insufficient) => ({
  kind: 'insufficient',
  staged: false,
  contract: { path: a.contract.path, hash: a.contract.hash },
  missing: a.missing ?? [],
  recorded: a.recorded ?? null,
});

export const insufficientText = (a: Insufficient, contract: string): string =>
  [
    `fettle apply: the contract ${contract} cannot be applied as written; nothing was staged. What each failed edit lacks:`,
    ...(a.reasons ?? []).map((r) => `  ${r}`),
    ...(a.recorded ? [a.recorded] : []),
    'Expand the contract where it says, then apply it again (`--json` gives this report as data).',
  ].join('\n');
