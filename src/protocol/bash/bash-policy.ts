// What the path rules (.fettle/policy.json and the user's file) make of the files a Bash command changed. The
// command has run: fettle cannot stop it, only record it. A path under an `ignore` rule is left out, as a file
// tool's write there is; a path under a `block` rule is recorded and named, so the person learns a shell command
// changed what the agent may not write; every record says what decided it (Fettle-Decided-By): the rule that
// matched, else what a file tool's direct write says. Read only once a command changed files, so a command that
// changed nothing pays nothing here; the parse comes from the cache policy.ts keeps.
import type { PathChange } from '../../core/bash-changes';
import { ruleDecider, ruleText } from '../../core/policy';
import { winnerOf } from '../../core/policy-engine';
import { toFettleError } from '../../errors';
import type { Store } from '../../store/store';
import type { Context } from '../context';
import { PROJECT_POLICY, policyLayers } from '../decide/policy';

/** Who decided a direct record no rule matched: the thresholds, as for a file tool's write (write/before.ts deciderOf). */
const NO_RULE = 'threshold';

export interface BashRuled {
  /** the changes to record, in path order: those under an `ignore` rule left out */
  changes: PathChange[];
  /** Fettle-Decided-By of each path recorded */
  decidedBy: Map<string, string>;
  /** paths a `block` rule covers that the command changed, each with how the rule is named to a person */
  blocked: { path: string; rule: string }[];
  /** how many changes an `ignore` rule left out */
  ignored: number;
  /** a policy file that cannot be read or parsed: every change is recorded, and this says why no rule applied */
  invalid?: string | undefined;
}

export const ruleBashChanges = (ctx: Context, store: Store, changes: PathChange[]): BashRuled => {
  const decidedBy = new Map<string, string>();
  let layers: ReturnType<typeof policyLayers>;
  try {
    layers = policyLayers(ctx, store);
  } catch (error) {
    // Nothing can be left out on the word of a policy that cannot be read: everything is recorded.
    const e = toFettleError(error);
    for (const c of changes) decidedBy.set(c.path, NO_RULE);
    return { changes, decidedBy, blocked: [], ignored: 0, invalid: e.message };
  }
  if (layers.length === 0) {
    for (const c of changes) decidedBy.set(c.path, NO_RULE);
    return { changes, decidedBy, blocked: [], ignored: 0 };
  }
  const files = { user: ctx.config.userPolicy, project: PROJECT_POLICY };
  const kept: PathChange[] = [];
  const blocked: BashRuled['blocked'] = [];
  for (const c of changes) {
    const rule = winnerOf(layers, c.path);
    if (rule?.action === 'ignore') continue;
    kept.push(c);
    decidedBy.set(c.path, rule ? ruleDecider(rule) : NO_RULE);
    if (rule?.action === 'block') blocked.push({ path: c.path, rule: ruleText(rule, files[rule.layer]) });
  }
  return { changes: kept, decidedBy, blocked, ignored: changes.length - kept.length };
};
