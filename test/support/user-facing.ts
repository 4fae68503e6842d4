// What a user receives (the docs the packages carry and the simulator serves, what the
// commands print) is read from their seat: their project, with the packages installed and
// the mock running. Two findings: a pointer into this repository's layout (a source path,
// a repository document by its path, a script of the repository, its root), and "the seed",
// this project's name for the API's requirements, which a reader never saw.

/** The ways a text points into the repository instead of the user's project. */
const REPOSITORY_POINTERS: readonly { what: string; re: RegExp }[] = [
  // A folder of the repository at the start of a path, `./` or `../` allowed (not inside a
  // package's path, such as node_modules/@generation-hub/api/generated/openapi.json).
  { what: "a path of the repository", re: /(?<=^|[\s`'"(]|[\s`'"(]\.\.?\/)(src|test|scripts|bench|openapi|consumers|generated)\/[\w./@{}-]*/g },
  { what: "a document by its path in the repository", re: /(?<=^|[\s`'"(]|[\s`'"(]\.\.?\/)docs\/[\w-]+\.(md|yaml)\b/g },
  { what: "a script of the repository", re: /\bnpm (start|run|test)\b/g },
  { what: "the repository's root", re: /<repo>/g },
  { what: "a clone or checkout of the repository", re: /\bin a (clone|checkout) of\b|\bin the repository\)/g },
];

/** Each place `text` points into the repository: what, and the words around it. */
export function repositoryPointers(text: string): string[] {
  const found: string[] = [];
  for (const { what, re } of REPOSITORY_POINTERS) {
    for (const m of text.matchAll(re)) found.push(`${what}: …${text.slice(Math.max(0, m.index - 50), m.index + m[0].length + 30).replace(/\s+/g, " ")}…`);
  }
  return found;
}

/** Markdown a user reads, without its link targets (a relative link that resolves in the package is not a mention). */
export function markdownProse(markdown: string): string {
  return markdown.replace(/\]\([^)\s]+\)/g, "]");
}

const ENTITIES: Record<string, string> = { quot: '"', amp: "&", lt: "<", gt: ">", nbsp: " ", "#39": "'" };

/** The words of an HTML page a reader sees, without scripts, styles and code (`<pre>`, `<code>`). */
export function htmlProse(html: string): string {
  return html
    .replace(/<(script|style|pre|code)\b[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&(quot|amp|lt|gt|nbsp|#39);/g, (_, e: string) => ENTITIES[e]!)
    .replace(/\s+/g, " ");
}

/** The prose of Markdown text (a description): without code spans and fenced blocks. */
export function markdownWords(markdown: string): string {
  return markdown.replace(/```[\s\S]*?```/g, " ").replace(/`[^`]*`/g, " ").replace(/\s+/g, " ");
}

/**
 * Each place `prose` (code already taken out) speaks of "the seed", after the words it
 * quotes from the API's requirements (`quotes`, the contract's `x-not-shown` and
 * `x-no-bound`) are taken out: those are the requirements' own words, kept verbatim.
 */
export function seedMentions(prose: string, quotes: readonly string[]): string[] {
  let text = prose;
  for (const quote of quotes) text = text.split(markdownWords(quote).trim()).join(" ");
  return [...text.matchAll(/\bseed(s|ed|'s)?\b/gi)].map((m) => `…${text.slice(Math.max(0, m.index - 60), m.index + 40)}…`);
}
