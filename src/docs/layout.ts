// The HTML frame of the site's own pages (landing page and guides). Every address in it
// is relative, so the site works under any mount path (the simulator serves it at /docs/).
import { escapeHtml, type Heading } from "./markdown.ts";
import { REFERENCE_PAGE } from "./routes.ts";

export interface NavGuide {
  slug: string;
  title: string;
}

export interface PageOptions {
  title: string;
  /** "" for a page at the site root, "../" for a page one folder down. */
  base: string;
  guides: NavGuide[];
  /** Slug of the guide shown, to mark it in the navigation. */
  current?: string;
  /** Headings of the page for its table of contents (level 2 only are listed). */
  headings?: Heading[];
  body: string;
  apiTitle: string;
}

export function page(o: PageOptions): string {
  const nav = o.guides
    .map(
      (g) =>
        `<li${g.slug === o.current ? ' class="current"' : ""}><a href="${o.base}guides/${g.slug}.html">${escapeHtml(g.title)}</a></li>`,
    )
    .join("");
  const toc = (o.headings ?? []).filter((h) => h.level === 2);
  const tocHtml = toc.length
    ? `<nav class="toc" aria-label="On this page"><h2>On this page</h2><ul>${toc
        .map((h) => `<li><a href="#${h.id}">${escapeHtml(h.text)}</a></li>`)
        .join("")}</ul></nav>`
    : "";
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(o.title)} · ${escapeHtml(o.apiTitle)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${o.base}assets/site.css">
</head>
<body>
<header class="top">
  <a class="brand" href="${o.base}index.html">${escapeHtml(o.apiTitle)}</a>
  <nav aria-label="Site">
    <a href="${o.base}index.html">Home</a>
    <a href="${o.base}${REFERENCE_PAGE}">API reference</a>
    <a href="${o.base}guides/errors.html#error-codes">Error codes</a>
    <a href="${o.base}guides/not-shown.html">Not shown</a>
  </nav>
</header>
<div class="frame">
  <nav class="side" aria-label="Guides">
    <h2>Guides</h2>
    <ul>${nav}</ul>
    <h2>Reference</h2>
    <ul><li><a href="${o.base}${REFERENCE_PAGE}">Every operation and schema</a></li>
    <li><a href="${o.base}openapi.json">openapi.json</a> · <a href="${o.base}openapi.yaml">openapi.yaml</a></li></ul>
  </nav>
  <main>
${o.body}
  </main>
  ${tocHtml}
</div>
</body>
</html>
`;
}

export const SITE_CSS = `
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg-soft: #f6f8fa; --accent: #0550ae; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
header.top { display: flex; align-items: center; gap: 2rem; padding: .75rem 1.5rem; border-bottom: 1px solid var(--line); background: #fff; position: sticky; top: 0; z-index: 2; }
header.top .brand { font-weight: 700; color: var(--fg); }
header.top nav a { margin-right: 1.25rem; }
.frame { display: grid; grid-template-columns: 16rem minmax(0, 1fr) 14rem; gap: 2rem; max-width: 90rem; margin: 0 auto; padding: 1.5rem; }
nav.side h2, nav.toc h2 { font-size: .8rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 1rem 0 .25rem; }
nav.side ul, nav.toc ul { list-style: none; padding: 0; margin: 0; }
nav.side li, nav.toc li { margin: .2rem 0; font-size: .95rem; }
nav.side li.current > a { font-weight: 700; color: var(--fg); }
nav.side, nav.toc { position: sticky; top: 4rem; align-self: start; max-height: calc(100vh - 5rem); overflow: auto; }
main { min-width: 0; }
main h1 { font-size: 2rem; line-height: 1.2; margin-top: 0; }
main h1, main h2, main h3, main h4 { scroll-margin-top: 4.5rem; }
main h2 { margin-top: 2.2rem; padding-bottom: .3rem; border-bottom: 1px solid var(--line); }
h1 .anchor, h2 .anchor, h3 .anchor, h4 .anchor { visibility: hidden; margin-left: .4rem; color: var(--muted); font-weight: 400; }
h1:hover .anchor, h2:hover .anchor, h3:hover .anchor, h4:hover .anchor { visibility: visible; }
code { font: .88em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--bg-soft); padding: .1em .3em; border-radius: 4px; }
pre { background: var(--bg-soft); border: 1px solid var(--line); border-radius: 6px; padding: .9rem 1rem; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
main img { max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 6px; }
pre code { background: none; padding: 0; font-size: .85rem; }
div.table { overflow-x: auto; }
table { border-collapse: collapse; margin: 1rem 0; font-size: .92rem; }
th, td { border: 1px solid var(--line); padding: .35rem .6rem; vertical-align: top; text-align: left; }
th { background: var(--bg-soft); }
blockquote { margin: 1rem 0; padding: .25rem 1rem; border-left: 4px solid var(--line); color: var(--muted); }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr)); gap: 1rem; padding: 0; list-style: none; }
.cards li { border: 1px solid var(--line); border-radius: 8px; padding: .9rem 1rem; }
.cards li a { font-weight: 600; }
.cards li p { margin: .3rem 0 0; color: var(--muted); font-size: .92rem; }
@media (max-width: 70rem) { .frame { grid-template-columns: 14rem minmax(0, 1fr); } nav.toc { display: none; } }
@media (max-width: 48rem) { .frame { grid-template-columns: minmax(0, 1fr); } nav.side { position: static; max-height: none; } }
`;
