// `fettle install` / `fettle uninstall`: fettle's hooks in one Claude Code settings file
// (protocol/settings-file.ts does the careful read-modify-write).
import { HOOK_EVENTS, MATCHER, READ_MATCHER, SESSION_EVENTS, TURN_EVENTS } from '../core/settings';
import { hookCommand, installHooks, type Scope, settingsPath, uninstallHooks } from '../protocol/settings-file';
import { cwdFor, type Edge } from './edge';

export const install = async (
  edge: Edge,
  dir: string | undefined,
  scope: Scope,
  options: { read?: boolean } = {},
): Promise<void> => {
  const command = hookCommand(edge.io.script);
  const file = settingsPath(cwdFor(edge, dir), edge.env, scope);
  const { path, result } = await installHooks(edge.env, file, command, options);
  const what = `${HOOK_EVENTS.join(' and ')} hooks on ${MATCHER}${options.read ? ` (and PreToolUse on ${READ_MATCHER})` : ''}, and ${[...SESSION_EVENTS, ...TURN_EVENTS].join(', ')} hooks`;
  edge.io.out(
    result === 'changed'
      ? `Installed fettle's ${what} in ${path}.\nHook command: ${command}`
      : `fettle's ${what} are already installed in ${path}; nothing changed.`,
  );
};

export const uninstall = async (edge: Edge, dir: string | undefined, scope: Scope): Promise<void> => {
  const { path, result } = await uninstallHooks(edge.env, settingsPath(cwdFor(edge, dir), edge.env, scope));
  edge.io.out(
    result === 'changed' ? `Removed fettle's hooks from ${path}.` : `No fettle hooks in ${path}; nothing changed.`,
  );
};
