// fettle_rewind: `fettle rewind` for a headless caller. The answer is the command's JSON: the files rolled back (and
// the id that undoes them), and the agent's own command that continues the conversation from where the turn began,
// spelled for a POSIX shell in the server's directory, or why the conversation was not rewound.
import { FettleError } from '../errors';
import { shellQuote } from '../io/self';
import { rewind } from '../protocol/rewind/rewind';
import { clientCommand, rewoundJson } from '../render/rewound';
import { type Args, contextFor, type McpEdge, text, type ToolResult } from './edge';

const SCOPES: Record<string, { files: boolean; conversation: boolean }> = {
  both: { files: true, conversation: true },
  files: { files: true, conversation: false },
  conversation: { files: false, conversation: true },
};

export const rewindTool = async (edge: McpEdge, args: Args): Promise<ToolResult> => {
  const scope = SCOPES[(args.scope as string | undefined) ?? 'both'];
  if (!scope)
    throw new FettleError('E_USAGE', `scope is "both", "files" or "conversation", not ${JSON.stringify(args.scope)}.`);
  const ctx = contextFor(edge, args);
  const dryRun = args.dry_run === true;
  const outcome = await rewind(ctx, {
    turn: args.turn as number,
    session: args.session as string | undefined,
    ...scope,
    dryRun,
  });
  const command = clientCommand(outcome.conversation, ctx.cwd, shellQuote);
  return text(JSON.stringify(rewoundJson(outcome, command, dryRun), null, 2));
};
