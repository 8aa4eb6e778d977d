// When a command hook that found no resident server starts one (docs/RESIDENT.md, "Started by the first hook
// call"). Pure: protocol/serve/autostart.ts reads the setting, the clock and the marker's time, and applies it.

/** The setting: `0` or `off` (also `false`, `no`) keeps command hooks in process, with no server started. */
export const AUTOSTART_VAR = 'FETTLE_SERVE_AUTOSTART';

/** After a start was tried, the next hook call without a server waits this long before trying again. */
export const AUTOSTART_RETRY_MS = 60_000;

/** After a start failed (the server said so), hook calls wait this long: each try costs a Node start. */
export const AUTOSTART_FAILED_WAIT_MS = 60 * 60_000;

export type AutostartVerdict = 'start' | 'off' | 'unsupported' | 'wait';

export interface AutostartFacts {
  /** the setting's value, as the environment holds it */
  setting: string | undefined;
  /** the platform, as Node names it (`linux`, `darwin`, `win32`) */
  platform: string;
  /** the marker's time: when a start was last tried, or until when not to try (a failed start sets it ahead) */
  marked: number | undefined;
  now: number;
}

export const autostartVerdict = (f: AutostartFacts): AutostartVerdict => {
  if (/^\s*(0|off|false|no)\s*$/i.test(f.setting ?? '')) return 'off';
  // The server's guards and lifetime are POSIX's (sh, process groups, 0700 directories).
  if (f.platform === 'win32') return 'unsupported';
  if (f.marked !== undefined && f.now - f.marked < AUTOSTART_RETRY_MS) return 'wait';
  return 'start';
};
