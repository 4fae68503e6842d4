// Checks a built site the way a reader's browser would follow it, without a browser:
// every href/src of the site's pages (and every Markdown link written into the reference's
// embedded document) must land on a file of the site, on an id of the target page, or on a
// route of the reference; nothing may be loaded from outside the site; no address may be
// absolute (the site is served under a mount path such as /docs/).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { REFERENCE_PAGE } from "./routes.ts";

export interface SiteProblem {
  page: string;
  href: string;
  problem: string;
}

export interface CheckOptions {
  /** Routes the reference serves (`#/tag/operation`), from routes.ts `knownRoutes()`. */
  referenceRoutes: ReadonlySet<string>;
}

function htmlFiles(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return htmlFiles(full, base);
    return name.endsWith(".html") ? [relative(base, full).split(sep).join("/")] : [];
  });
}

/** The document embedded in the reference page by `redocly build-docs`. */
export function embeddedDefinition(html: string): unknown {
  const start = html.indexOf("const __redoc_definition = ");
  if (start < 0) throw new Error(`${REFERENCE_PAGE} carries no embedded definition`);
  const from = start + "const __redoc_definition = ".length;
  const end = html.indexOf(";\n", from);
  return JSON.parse(html.slice(from, end));
}

function markdownLinks(node: unknown, out: string[]): string[] {
  if (typeof node === "string") {
    for (const m of node.matchAll(/\]\(([^)\s]+)\)/g)) out.push(m[1]!);
  } else if (node && typeof node === "object") {
    for (const value of Object.values(node)) markdownLinks(value, out);
  }
  return out;
}

const idsCache = new Map<string, Set<string>>();
function idsOf(file: string): Set<string> {
  let ids = idsCache.get(file);
  if (!ids) {
    ids = new Set([...readFileSync(file, "utf8").matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!));
    idsCache.set(file, ids);
  }
  return ids;
}

export function checkSite(outDir: string, options: CheckOptions): SiteProblem[] {
  idsCache.clear();
  const problems: SiteProblem[] = [];
  const pages = htmlFiles(outDir);
  if (!pages.includes("index.html")) problems.push({ page: "index.html", href: "", problem: "the site has no index.html" });
  if (!pages.includes(REFERENCE_PAGE)) problems.push({ page: REFERENCE_PAGE, href: "", problem: "the site has no reference page" });

  for (const page of pages) {
    const html = readFileSync(join(outDir, page), "utf8");
    const hrefs: string[] = [];
    if (page === REFERENCE_PAGE) {
      // Redoc's own script is inlined (it holds URL strings of its own that are not loads);
      // check what the page loads at the tag level, and every link written into the document.
      for (const m of html.matchAll(/<(script|link|img|iframe)\b[^>]*\s(?:src|href)="(https?:)?\/\/[^"]*"/gi)) {
        problems.push({ page, href: m[0], problem: "loaded from outside the site" });
      }
      if (/https:\/\/cdn\.redoc\.ly\//.test(html)) problems.push({ page, href: "https://cdn.redoc.ly/", problem: "the Redoc logo would load from a CDN" });
      hrefs.push(...markdownLinks(embeddedDefinition(html), []));
    } else {
      for (const m of html.matchAll(/<(\w+)\b[^>]*?\s(href|src)="([^"]*)"/g)) {
        const [, tag, attr, value] = m;
        if (/^(https?:)?\/\//i.test(value!) && (attr === "src" || tag === "link")) {
          problems.push({ page, href: value!, problem: "loaded from outside the site" });
          continue;
        }
        hrefs.push(value!.replace(/&amp;/g, "&"));
      }
    }
    for (const href of hrefs) {
      const problem = checkHref(outDir, page, href, options);
      if (problem) problems.push({ page, href, problem });
    }
  }
  return problems;
}

function checkHref(outDir: string, page: string, href: string, options: CheckOptions): string | undefined {
  if (/^(https?:|mailto:|data:)/i.test(href)) return undefined;
  if (href === "") return "empty link";
  if (href.startsWith("/")) return "absolute address: breaks when the site is served under a mount path";
  if (/^[a-z][\w+.-]*:/i.test(href)) return "unresolved link scheme";
  const hash = href.indexOf("#");
  const path = hash < 0 ? href : href.slice(0, hash);
  const fragment = hash < 0 ? undefined : href.slice(hash + 1);
  let target = path === "" ? page : normalize(join(dirname(page), decodeURIComponent(path))).split(sep).join("/");
  if (target.startsWith("..")) return "points above the site root";
  if (path.endsWith("/") || target === ".") target = `${target === "." ? "" : target.replace(/\/?$/, "/")}index.html`;
  const file = join(outDir, target);
  if (!existsSync(file) || statSync(file).isDirectory()) return `no file ${target} in the site`;
  if (fragment === undefined || fragment === "") return undefined;
  if (target === REFERENCE_PAGE) {
    return options.referenceRoutes.has(`#${fragment}`) ? undefined : `no route #${fragment} in the reference`;
  }
  if (target.endsWith(".html") && !idsOf(file).has(decodeURIComponent(fragment))) return `no id "${fragment}" in ${target}`;
  return undefined;
}
