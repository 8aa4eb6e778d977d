// Which install to keep when fettle is installed in several scopes of one agent (each write then runs it once per
// scope): one answer, which install's warning and doctor's fix both give.

export type InstallScope = 'user' | 'project' | 'local';

/**
 * Kept first: the user scope reaches every project of this person, the project scope this project for everyone who
 * shares its settings, the local scope this project for this person only. The widest stays; it covers the others.
 */
const KEEP_ORDER: readonly InstallScope[] = ['user', 'project', 'local'];

const REACH: Record<InstallScope, string> = {
  user: 'covers every project of yours, this one included',
  project: 'covers this project for everyone who shares its settings, you included',
  local: 'covers this project for you',
};

/** The scope to keep among `scopes`, and the others to uninstall, widest first. */
export const keepOne = (scopes: readonly InstallScope[]): { keep: InstallScope; remove: InstallScope[] } => {
  const present = KEEP_ORDER.filter((s) => scopes.includes(s));
  const [keep = 'user', ...remove] = present;
  return { keep, remove };
};

/** Doctor's fix and install's advice: the `fettle uninstall` commands to run, and why that one stays. */
export const keepOneFix = (scopes: readonly InstallScope[], agent?: string): string => {
  const { keep, remove } = keepOne(scopes);
  const flag = agent ? ` --agent ${agent}` : '';
  const commands = remove.map((s) => `\`fettle uninstall${flag} --scope ${s}\``).join(' and ');
  return `Keep one: ${commands} (the ${keep} scope stays: it ${REACH[keep]}).`;
};
