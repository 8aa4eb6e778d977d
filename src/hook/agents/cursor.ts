// Cursor's hooks (.cursor/hooks.json, `{"version": 1, "hooks": {"<event>": [{"command"}]}}`). Cursor runs no
// hook before its agent edits a file, so nothing can be staged: afterFileEdit reports the edit once it is on disk
// (`file_path`, `edits: [{old_string, new_string}]`), and fettle records it when it can recover the previous bytes
// by undoing those replacements (core/cursor-edits.ts); when it cannot, it says so. beforeSubmitPrompt counts
// turns (and must answer `continue`). Cursor wants JSON on stdout from every hook.
import { reverseEdits, type CursorEdit } from '../../core/cursor-edits';
import { AGENT_TITLES } from '../../core/agents';
import { invocationFor, selfCommand } from '../../io/self';
import { recordLandedWrite } from '../../protocol/write/landed-write';
import type { HookEdge } from '../edge';
import { isOutcome, writeContext, writeFailure } from '../failure';
import { warn, type HookOutcome } from '../outcome';
import { str, usablePath, type Obj } from '../payload';
import { isObj } from '../../core/json';
import { countTurn } from '../turn';
import { shownTarget } from '../../core/shown-path';

const answered = (json: unknown, notice?: HookOutcome): HookOutcome => ({
  ...(notice ?? { exitCode: 0 }),
  stdout: JSON.stringify(json),
});

const editsOf = (value: unknown): CursorEdit[] | null => {
  if (!Array.isArray(value)) return null;
  const edits = value.map((e) =>
    isObj(e) && typeof e.old_string === 'string' && typeof e.new_string === 'string'
      ? { oldString: e.old_string, newString: e.new_string }
      : null,
  );
  return edits.every((e): e is CursorEdit => e !== null) ? edits : null;
};

export const runCursor = async (data: Obj, edge: HookEdge): Promise<HookOutcome> => {
  const event = data.hook_event_name;
  const session = str(data.conversation_id);
  if (event === 'beforeSubmitPrompt') return answered({ continue: true }, await countTurn({ session }, edge));
  if (event !== 'afterFileEdit')
    return warn(
      `fettle: ${AGENT_TITLES.cursor} sent ${typeof event === 'string' ? JSON.stringify(event.slice(0, 80)) : 'an event'}, which fettle does not handle; it records Cursor's edits from afterFileEdit (\`fettle install --agent cursor\`). This call was not protected by fettle.`,
    );
  const file = data.file_path;
  const edits = editsOf(data.edits);
  if (!usablePath(file) || !edits)
    return warn('fettle: Cursor sent afterFileEdit without a file_path and edits; this edit was not recorded.');
  const roots = Array.isArray(data.workspace_roots) ? data.workspace_roots : [];
  const ctx = writeContext(edge, str(roots[0]) ?? str(data.cwd), false);
  if (isOutcome(ctx)) return ctx;
  const origin = { session, toolUse: str(data.generation_id), tool: 'edit', agent: 'cursor' };
  try {
    const landed = await recordLandedWrite(ctx, { filePath: file, recover: (now) => reverseEdits(now, edits), origin });
    if (landed.kind === 'unknown')
      return answered(
        {},
        warn(
          `fettle: could not tell what ${shownTarget(landed.target)} held before Cursor's edit (${landed.why}); this edit was not recorded.`,
        ),
      );
    if (landed.kind !== 'recorded') return answered({}); // nothing changed, or a policy `ignore` rule covers it
    const undo = `undo it with \`${invocationFor(selfCommand(ctx.env, edge.script), ctx.cwd, landed.target.store, landed.target.realPath)} rollback ${landed.id}\``;
    if (landed.blocked)
      return answered(
        {},
        warn(
          `fettle: Cursor edited ${shownTarget(landed.target)}, which policy rule ${landed.blocked} blocks the agent from writing; Cursor runs no hook before an edit, so fettle could not stop it. It is recorded: ${undo}.`,
        ),
      );
    if (landed.policyInvalid)
      return answered(
        {},
        warn(
          `fettle: Cursor's edit of ${shownTarget(landed.target)} is recorded, but no policy rule was applied: ${landed.policyInvalid}`,
        ),
      );
    return answered({});
  } catch (error) {
    return writeFailure(error, ctx, 'after', file);
  }
};
