// Durations in the words fettle prints.
import { plural } from './plural';

/** "3m", "2h", "5d": compact ages for terminal tables. */
export const shortDuration = (ms: number): string => {
  if (!Number.isFinite(ms)) return '?';
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.round(s / 60)}m`;
  if (s < 86400) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86400)}d`;
};

/** "3 minutes": how long ago a change expired, rounded, at least one. */
export const minutesText = (ms: number): string => {
  const m = Math.max(1, Math.round(ms / 60000));
  return plural(m, 'minute');
};

/** "10 min", "1 h", "45 s": a configured number of seconds, in the largest unit that divides it. */
export const secondsText = (seconds: number): string =>
  seconds % 3600 === 0 ? `${seconds / 3600} h` : seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;

/** "45 s", "12 min", "3 h", "2 d": how long ago something was, rounded down to its largest unit. */
export const agoText = (ms: number): string => {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86400)} d`;
};
