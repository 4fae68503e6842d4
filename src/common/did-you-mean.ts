// "Did you mean": the known word closest to a mistyped one (a flag, a command, a rule id),
// for a usage error that fits on one line. Shared by the command lines of the simulator,
// the dev tools' `generation-hub` and the conformance suite (`--only`, `--operations`).

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The known word `given` most likely meant: the nearest within a few edits (a third of its
 * length, at least two), else the one known word it begins (`--retain` alone is no guess
 * between five). Undefined when nothing is close.
 */
export function closest(given: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const word of known) {
    const d = editDistance(given, word);
    if (d < bestDistance) [best, bestDistance] = [word, d];
  }
  if (best !== undefined && bestDistance <= Math.max(2, Math.floor(given.length / 3))) return best;
  const begun = known.filter((word) => given.length >= 3 && word.startsWith(given));
  return begun.length === 1 ? begun[0] : undefined;
}

/**
 * The known words nearest to `given` (edits, case aside), at most `most` of them, all at
 * the least distance; none when even the nearest is far off (more than half its length,
 * and more than two edits).
 */
export function nearest(given: string, known: readonly string[], most = 3): string[] {
  const scored = known.map((word) => ({ word, d: editDistance(given.toUpperCase(), word.toUpperCase()) }));
  const best = Math.min(...scored.map((x) => x.d));
  if (best > Math.max(2, Math.floor(given.length / 2))) return [];
  return scored.filter((x) => x.d === best).slice(0, most).map((x) => x.word);
}
