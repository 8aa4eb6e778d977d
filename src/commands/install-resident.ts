// `fettle install --resident`: fettle's hooks answered by the resident server (`fettle serve`), each with its
// guard, in a user's or a local settings file; never in the project's shared one, since they name this user's
// port and paths.
import { TOKEN_VAR } from '../core/resident';
import { FettleError } from '../errors';
import { installResident } from '../protocol/resident-install';
import { ensureServer } from '../protocol/serve-control';
import { tokenExport } from '../protocol/serve-state';
import { type Scope, settingsPath } from '../protocol/settings-file';
import { cwdFor, type Edge } from './edge';

export const installResidentCommand = async (
  edge: Edge,
  dir: string | undefined,
  scope: Scope,
  options: { read?: boolean } = {},
): Promise<void> => {
  if (scope === 'project')
    throw new FettleError(
      'E_USAGE',
      "resident hooks name this user's server port and paths, so they do not belong in the project's shared settings.",
      { hint: 'Use `fettle install --resident` (your user settings) or `--scope local`.' },
    );
  const file = settingsPath(cwdFor(edge, dir), edge.env, scope);
  const done = await installResident(edge.env, file, edge.io.script, options);
  const started = await ensureServer(done.paths, edge.env, edge.io.script ?? 'fettle').then(
    (r) => `The server runs now (pid ${r.pid}).`,
    (e: Error) => `The server did not start now (${e.message}); the first hook call of a session starts it.`,
  );
  const hasToken = edge.env[TOKEN_VAR] !== undefined && edge.env[TOKEN_VAR] !== '';
  edge.io.out(
    [
      done.result === 'changed'
        ? `Installed fettle's resident hooks in ${done.path}: a server on 127.0.0.1:${done.port} answers them.`
        : `fettle's resident hooks are already installed in ${done.path} (127.0.0.1:${done.port}); nothing changed.`,
      started,
      `Claude Code sends the server a per-user token from its environment${hasToken ? '' : ' (this shell has none yet)'}. Add this line to your shell profile (~/.bashrc, ~/.zshrc), and start Claude Code from a new shell:`,
      `  ${tokenExport(done.paths)}`,
      'Until then fettle protects writes through its command hook, as before. `fettle serve --status` and `fettle doctor` check the setup.',
    ].join('\n'),
  );
};
