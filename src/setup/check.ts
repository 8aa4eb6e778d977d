// One finding of `fettle doctor`: what it checked, what it found and, when something is off, what fixes it.
export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
  /** the command or step that fixes it */
  fix?: string;
}
