// The guides (docs/guides/*.md) rendered into the site. Guides link to the reference with
// `op:<operationId>`, `schema:<Name>` and `tag:<name>`, to each other with `<slug>.md`
// (optionally `#anchor`), to files at the site root with `site:<file>`, and name files of
// the repository with `repo:<path>` (rendered as a path, not a link: the site does not
// carry them). Comments `<!-- generated:<name> -->` are replaced by tables generated from
// the contract, so those parts cannot drift from it.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { contract, errorCodes, operations, type JsonObject } from "../contract/index.ts";
import { errorRows } from "./enrich.ts";
import { gaps, groupedGaps } from "./gaps.ts";
import { derefIn } from "./json.ts";
import { renderMarkdown, slugify, stripInline, type Heading } from "./markdown.ts";
import { REFERENCE_PAGE, operationRoute, schemaRoute, tagRoute } from "./routes.ts";

/** The guides the site carries, in reading order. The build fails when one is missing. */
export const REQUIRED_GUIDES = [
  "getting-started",
  "errors",
  "idempotency",
  "events",
  "rate-limits",
  "uploads",
  "oauth",
  "generators",
  "not-shown",
] as const;

export interface GuideSource {
  slug: string;
  file: string;
  markdown: string;
  /** A document of the project shown beside the guides (repository path), not a guide of docs/guides. */
  projectDoc?: string;
}

/**
 * Documents of the project that the site also carries when they exist, after the guides
 * (owned elsewhere: their links to files of the repository are shown as paths).
 */
export const PROJECT_DOCS = [
  { slug: "simulator", path: "docs/simulator.md" },
  { slug: "conformance", path: "docs/conformance.md" },
] as const;

export function readProjectDocs(root: string): GuideSource[] {
  return PROJECT_DOCS.filter((d) => existsSync(join(root, d.path))).map((d) => ({
    slug: d.slug,
    file: join(root, d.path),
    markdown: readFileSync(join(root, d.path), "utf8"),
    projectDoc: d.path,
  }));
}

export interface RenderedGuide {
  slug: string;
  title: string;
  summary: string;
  html: string;
  headings: Heading[];
  links: string[];
}

export function readGuides(dir: string): GuideSource[] {
  if (!existsSync(dir)) throw new Error(`No guides folder at ${dir}`);
  const files = readdirSync(dir).filter((f) => f.endsWith(".md"));
  const missing = REQUIRED_GUIDES.filter((slug) => !files.includes(`${slug}.md`));
  if (missing.length) throw new Error(`Missing guide${missing.length > 1 ? "s" : ""}: ${missing.map((m) => `${dir}/${m}.md`).join(", ")}`);
  const order = (slug: string) => {
    const k = (REQUIRED_GUIDES as readonly string[]).indexOf(slug);
    return k < 0 ? REQUIRED_GUIDES.length : k;
  };
  return files
    .map((f) => ({ slug: f.slice(0, -3), file: join(dir, f), markdown: readFileSync(join(dir, f), "utf8") }))
    .sort((a, b) => order(a.slug) - order(b.slug) || a.slug.localeCompare(b.slug));
}

const cell = (text: string) => text.replace(/\s+/g, " ").trim().replace(/\|/g, "\\|");

/** The operations whose error table lists each code (envelope codes only), in the document's order. */
function operationsByCode(): Map<string, string[]> {
  const users = new Map<string, string[]>();
  for (const op of operations()) {
    for (const row of errorRows(op.op)) {
      if (row.form !== "envelope") continue;
      const list = users.get(row.code) ?? [];
      if (!list.includes(op.operationId)) list.push(op.operationId);
      users.set(row.code, list);
    }
  }
  return users;
}

/** Codes listed by more operations than this get a section of their own instead of inline links. */
const INLINE_OPERATIONS = 4;
const listingHeading = (code: string) => `Operations that list \`${code}\``;
const opLinks = (ops: string[]) => ops.map((id) => `[${id}](op:${id})`).join(", ");

/** The tables a guide can ask for with `<!-- generated:<name> -->`. */
export const GENERATED: Record<string, () => string> = {
  // Every error code of the API: status, meaning, and the operations that list it (linked
  // inline, or to its section of "error-code-operations" when they are many).
  "error-codes": () => {
    const users = operationsByCode();
    const rows = [...errorCodes.values()].map((r) => {
      const ops = users.get(r.code) ?? [];
      const where =
        ops.length === 0
          ? "no operation of the document lists it"
          : ops.length > INLINE_OPERATIONS
            ? `[${ops.length} operations](#${slugify(listingHeading(r.code))})`
            : opLinks(ops);
      return `| \`${r.code}\` | ${r.status} | ${cell(r.meaning)} | ${where} |`;
    });
    return ["| `error.code` | Status | Meaning | Listed by |", "|---|---|---|---|", ...rows].join("\n");
  },
  // For each code listed by many operations, a section linking every one of them.
  "error-code-operations": () => {
    const users = operationsByCode();
    return [...errorCodes.values()]
      .filter((r) => (users.get(r.code) ?? []).length > INLINE_OPERATIONS)
      .map((r) => `### ${listingHeading(r.code)}\n\n${opLinks(users.get(r.code)!)}.`)
      .join("\n\n");
  },
  // The reasons of `error.details[].reason`.
  "detail-reasons": () => {
    const schema = (contract.components as JsonObject).schemas as JsonObject;
    const rows = ((schema.DetailReason as JsonObject).anyOf as JsonObject[]).map(
      (r) => `| \`${String(r.const)}\` | ${cell(String(r.description ?? ""))} |`,
    );
    return ["| `reason` | Meaning |", "|---|---|", ...rows].join("\n");
  },
  // Why a FAILED generation failed (`error.reason` of the record).
  "failure-reasons": () => {
    const schema = (contract.components as JsonObject).schemas as JsonObject;
    const values = (derefIn(contract, schema.FailureReason) as JsonObject).enum as string[];
    return values.map((v) => `\`${v}\``).join(", ");
  },
  // Generation statuses with what each means.
  "generation-statuses": () => {
    const schema = (contract.components as JsonObject).schemas as JsonObject;
    const rows = ((schema.GenerationStatus as JsonObject).anyOf as JsonObject[]).map(
      (r) => `| \`${String(r.const)}\` | ${r["x-in-progress"] ? "yes" : "no"} | ${cell(String(r.description ?? ""))} |`,
    );
    return ["| `status` | Work continues | Meaning |", "|---|---|---|", ...rows].join("\n");
  },
  // Everything the requirements (the seed) mark "not shown", from the `x-not-shown` annotations.
  "not-shown": () => {
    const rows = groupedGaps().map((g) => `| ${cell(g.quote)} | ${g.places.map(cell).join("; ")} |`);
    return ["| What the requirements say | Where it applies |", "|---|---|", ...rows].join("\n");
  },
  // The request inputs the requirements name without a bound, from the `x-no-bound` annotations.
  "no-bound": () => {
    const rows = groupedGaps(gaps(contract, "x-no-bound")).map((g) => `| ${cell(g.quote)} | ${g.places.map(cell).join("; ")} |`);
    return ["| Where the requirements name it | Input |", "|---|---|", ...rows].join("\n");
  },
};

export function expandDirectives(markdown: string, where: string): string {
  return markdown.replace(/<!--\s*generated:([\w-]+)\s*-->/g, (_, name: string) => {
    const make = GENERATED[name];
    if (!make) throw new Error(`${where}: unknown directive generated:${name}`);
    return make();
  });
}

/** Link resolution for a page in `guides/`. Throws on a target that does not exist. */
export function guideLinkResolver(guideSlugs: ReadonlySet<string>, where: string): (href: string) => string {
  const ref = `../${REFERENCE_PAGE}`;
  return (href) => {
    const fail = (why: string): never => {
      throw new Error(`${where}: broken link ${href}: ${why}`);
    };
    const [scheme, rest] = href.includes(":") ? [href.slice(0, href.indexOf(":")), href.slice(href.indexOf(":") + 1)] : ["", href];
    try {
      if (scheme === "op") return ref + operationRoute(rest);
      if (scheme === "schema") return ref + schemaRoute(rest);
      if (scheme === "tag") return ref + tagRoute(rest);
    } catch (e) {
      fail((e as Error).message);
    }
    if (scheme === "reference") return ref;
    if (scheme === "site") return `../${rest}`;
    if (scheme === "http" || scheme === "https") return href;
    if (scheme) fail(`unknown link scheme ${scheme}:`);
    if (href.startsWith("#")) return href;
    const m = /^([\w-]+)\.md(#[\w-]+)?$/.exec(href);
    if (m) {
      if (!guideSlugs.has(m[1]!)) fail(`no guide docs/guides/${m[1]}.md`);
      return `${m[1]}.html${m[2] ?? ""}`;
    }
    return fail("write op:<operationId>, schema:<Name>, tag:<name>, <guide>.md, site:<file>, repo:<path> or #anchor");
  };
}

/**
 * `[label](repo:path)` names a file of the repository: a link to its page when the site
 * carries it (`pages`: repository path to slug), otherwise the path, not a link.
 */
function repoMentions(markdown: string, pages: ReadonlyMap<string, string>): string {
  return markdown.replace(/\[([^\]]+)\]\(repo:([^)\s]+)\)/g, (_, label: string, path: string) => {
    const slug = pages.get(path);
    if (slug) return `[${label}](${slug}.md)`;
    return stripInline(label) === path ? `\`${path}\`` : `${label} (\`${path}\` in the repository)`;
  });
}

/**
 * In a guide, a link to a project document beside the guides (`../simulator.md`: the path
 * that also works in the Markdown the package ships) links to its page. Another link out
 * of docs/guides/ is left to fail.
 */
function guideLinksOut(markdown: string, pages: ReadonlyMap<string, string>): string {
  return markdown.replace(/\]\(\.\.\/([^)\s#]+)(#[^)\s]*)?\)/g, (whole, file: string, anchor: string | undefined) => {
    const slug = pages.get(`docs/${file}`);
    return slug ? `](${slug}.md${anchor ?? ""})` : whole;
  });
}

/** Pictures of the project's documents (`docs/images/`): the site carries them at `images/`. */
export const PROJECT_IMAGES = "docs/images/";

/** In a project document, links to files of the repository become `repo:` mentions; its pictures, files of the site. */
function projectLinks(markdown: string, path: string): string {
  const dir = path.split("/").slice(0, -1);
  return markdown.replace(/\]\(([^)\s]+)\)/g, (whole, href: string) => {
    if (/^(https?:|#)/.test(href)) return whole;
    const parts = [...dir];
    for (const seg of href.split("#")[0]!.split("/")) {
      if (seg === "..") parts.pop();
      else if (seg !== "." && seg !== "") parts.push(seg);
    }
    const target = parts.join("/");
    if (target.startsWith(PROJECT_IMAGES)) return `](site:images/${target.slice(PROJECT_IMAGES.length)})`;
    return `](repo:${target})`;
  });
}

/** The first paragraph after the title, as plain text (it may start with inline code, never with a fence, list, table, quote or heading). */
export function summaryOf(markdown: string): string {
  const first = /^#\s.*\n+((?!```)[^#<\n|>\-\s][\s\S]*?)(\n\s*\n|$)/.exec(markdown);
  return first ? stripInline(first[1]!.replace(/\s+/g, " ").trim()) : "";
}

export function renderGuide(source: GuideSource, guideSlugs: ReadonlySet<string>, projectPages: ReadonlyMap<string, string> = new Map()): RenderedGuide {
  const where = source.projectDoc ?? `docs/guides/${source.slug}.md`;
  const own = source.projectDoc ? projectLinks(source.markdown, source.projectDoc) : guideLinksOut(expandDirectives(source.markdown, where), projectPages);
  const markdown = repoMentions(own, projectPages);
  const rendered = renderMarkdown(markdown, { resolveLink: guideLinkResolver(guideSlugs, where) });
  const h1 = rendered.headings.find((h) => h.level === 1);
  if (!h1) throw new Error(`${where}: a guide starts with a level-1 heading (its title)`);
  const summary = summaryOf(markdown);
  if (!summary) throw new Error(`${where}: a guide's first paragraph after its title is its summary (its card on the home page); none found`);
  return {
    slug: source.slug,
    title: h1.text,
    summary,
    html: rendered.html,
    headings: rendered.headings,
    links: rendered.links,
  };
}
