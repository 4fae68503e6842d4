// Names and ids the suite makes up: a path with placeholders the server cannot know, a
// key shaped like a given one, ids nobody has, a fresh token for names and keys.

/** A concrete path for a template: placeholders the server cannot know. */
export function concrete(path: string): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) => (name === "index" ? "0" : name === "kind" ? "image" : `conformance-${name}-0000000000000000`));
}

/** A key of the same shape that the server cannot know: the last characters changed. */
export function unknownKeyLike(key: string): string {
  const tail = Math.min(8, Math.max(1, Math.floor(key.length / 3)));
  const swap = (ch: string) => (/[0-9]/.test(ch) ? String((Number(ch) + 5) % 10) : /[a-z]/.test(ch) ? (ch === "q" ? "x" : "q") : /[A-Z]/.test(ch) ? (ch === "Q" ? "X" : "Q") : ch);
  return key.slice(0, key.length - tail) + [...key.slice(key.length - tail)].map(swap).join("");
}

export function randomToken(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
}

export function fakeIds(n: number): string[] {
  const token = randomToken();
  return Array.from({ length: n }, (_, i) => `conformance-unknown-${token}-${String(i).padStart(3, "0")}`);
}
