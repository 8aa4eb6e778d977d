// "Did you mean …?" for a mistyped id: the closest known one, if it is close enough to be a typo.

/** Levenshtein distance, for short strings (ids of eight characters). */
export const editDistance = (a: string, b: string): number => {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(
        (row[j] as number) + 1,
        (next[j - 1] as number) + 1,
        (row[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    row = next;
  }
  return row[b.length] as number;
};

/** The known string nearest to `typed` within `maxDistance` edits (ties: the first), or undefined. */
export const nearest = (typed: string, known: readonly string[], maxDistance = 2): string | undefined => {
  let best: { value: string; distance: number } | undefined;
  for (const value of known) {
    const distance = editDistance(typed, value);
    if (distance <= maxDistance && (!best || distance < best.distance)) best = { value, distance };
  }
  return best?.value;
};
