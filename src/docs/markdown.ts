// A small Markdown renderer for the guides (docs/guides/*.md). It covers the subset the
// guides use and nothing more: ATX headings (with ids), paragraphs, fenced code, pipe
// tables, bullet and numbered lists (nested by indentation), block quotes, horizontal
// rules; inline code, links, **bold** and *italic*. Raw HTML is escaped, never passed
// through. Links go through `resolveLink`, so the site builder can map `op:`/`schema:`/
// `guide:` links to real pages and refuse the ones that point nowhere.

export interface RenderOptions {
  /** Maps a link target as written to the href to emit; throws on a target that does not exist. */
  resolveLink?: (href: string) => string;
}

export interface Heading {
  level: number;
  id: string;
  text: string;
}

export interface Rendered {
  html: string;
  /** Every heading in order, with the id it got (for tables of contents and anchor checks). */
  headings: Heading[];
  /** Every href emitted (after resolution). */
  links: string[];
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** GitHub-style heading slug: lower case, punctuation dropped, spaces to dashes. */
export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/<[^>]*>/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .trim()
    .replace(/\s+/g, "-");
}

interface Context {
  options: RenderOptions;
  headings: Heading[];
  links: string[];
  usedIds: Map<string, number>;
}

export function renderMarkdown(source: string, options: RenderOptions = {}): Rendered {
  const ctx: Context = { options, headings: [], links: [], usedIds: new Map() };
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const html = renderBlocks(lines, ctx);
  return { html, headings: ctx.headings, links: ctx.links };
}

const FENCE = /^(\s*)(```+|~~~+)\s*([\w+-]*)\s*$/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^(\s*)[-*+]\s+(.*)$/;
const ORDERED = /^(\s*)(\d{1,9})[.)]\s+(.*)$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

function isBlank(line: string): boolean {
  return line.trim() === "";
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

function startsBlock(line: string): boolean {
  return FENCE.test(line) || HEADING.test(line) || BULLET.test(line) || ORDERED.test(line) || RULE.test(line) || /^\s*>/.test(line);
}

function renderBlocks(lines: string[], ctx: Context): string {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (isBlank(line)) {
      i++;
      continue;
    }
    // HTML comments (build directives are expanded before rendering; others vanish).
    if (/^\s*<!--/.test(line)) {
      while (i < lines.length && !lines[i]!.includes("-->")) i++;
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[2]!;
      const lang = fence[3] ?? "";
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trim().startsWith(marker)) body.push(lines[i++]!);
      if (i >= lines.length) throw new Error(`Unclosed code fence (${marker}) in Markdown`);
      i++;
      const indent = fence[1]!.length;
      const code = body.map((l) => (indentOf(l) >= indent ? l.slice(indent) : l.trimStart())).join("\n");
      const cls = lang ? ` class="language-${escapeHtml(lang)}"` : "";
      out.push(`<pre><code${cls}>${escapeHtml(code)}</code></pre>`);
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      const text = heading[2]!;
      const id = uniqueId(ctx, slugify(stripInline(text)) || "section");
      ctx.headings.push({ level, id, text: stripInline(text) });
      out.push(`<h${level} id="${id}">${renderInline(text, ctx)}<a class="anchor" href="#${id}" aria-label="Link to this section">#</a></h${level}>`);
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push("<hr>");
      i++;
      continue;
    }
    if (line.includes("|") && i + 1 < lines.length && TABLE_SEPARATOR.test(lines[i + 1]!)) {
      const header = splitRow(line);
      const aligns = splitRow(lines[i + 1]!).map((cell) =>
        cell.startsWith(":") && cell.endsWith(":") ? "center" : cell.endsWith(":") ? "right" : cell.startsWith(":") ? "left" : "",
      );
      i += 2;
      const rows: string[][] = [];
      while (i < lines.length && !isBlank(lines[i]!) && lines[i]!.includes("|")) rows.push(splitRow(lines[i++]!));
      const cell = (tag: string, text: string, col: number) =>
        `<${tag}${aligns[col] ? ` style="text-align:${aligns[col]}"` : ""}>${renderInline(text, ctx)}</${tag}>`;
      out.push(
        `<div class="table"><table><thead><tr>${header.map((h, c) => cell("th", h, c)).join("")}</tr></thead><tbody>` +
          rows.map((r) => `<tr>${header.map((_, c) => cell("td", r[c] ?? "", c)).join("")}</tr>`).join("") +
          `</tbody></table></div>`,
      );
      continue;
    }
    if (/^\s*>/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && /^\s*>/.test(lines[i]!)) body.push(lines[i++]!.replace(/^\s*>\s?/, ""));
      out.push(`<blockquote>${renderBlocks(body, ctx)}</blockquote>`);
      continue;
    }
    if (BULLET.test(line) || ORDERED.test(line)) {
      const [html, next] = renderList(lines, i, ctx);
      out.push(html);
      i = next;
      continue;
    }
    // Paragraph: until a blank line or the start of another block.
    const para: string[] = [line.trim()];
    i++;
    while (i < lines.length && !isBlank(lines[i]!) && !startsBlock(lines[i]!) && !/^\s*<!--/.test(lines[i]!)) {
      para.push(lines[i++]!.trim());
    }
    out.push(`<p>${renderInline(para.join("\n"), ctx)}</p>`);
  }
  return out.join("\n");
}

function renderList(lines: string[], start: number, ctx: Context): [string, number] {
  const first = lines[start]!;
  const ordered = ORDERED.test(first) && !BULLET.test(first);
  const baseIndent = indentOf(first);
  const pattern = ordered ? ORDERED : BULLET;
  const items: string[][] = [];
  const startNumber = ordered ? Number(ORDERED.exec(first)![2]) : 1;
  let i = start;
  let loose = false;
  while (i < lines.length) {
    const line = lines[i]!;
    const m = pattern.exec(line);
    if (!m || indentOf(line) !== baseIndent) break;
    const content = ordered ? m[3]! : m[2]!;
    const contentIndent = line.indexOf(content);
    const item: string[] = [content];
    i++;
    // Continuation: indented lines (deeper than the marker), blank lines followed by
    // indented lines, or lazy paragraph continuation lines.
    while (i < lines.length) {
      const next = lines[i]!;
      if (isBlank(next)) {
        const after = lines.slice(i + 1).find((l) => !isBlank(l));
        if (after !== undefined && indentOf(after) > baseIndent) {
          item.push("");
          i++;
          continue;
        }
        if (after !== undefined && pattern.test(after) && indentOf(after) === baseIndent) loose = true;
        break;
      }
      if (indentOf(next) > baseIndent) {
        item.push(next.slice(Math.min(indentOf(next), contentIndent)));
        i++;
        continue;
      }
      if (!startsBlock(next) && !next.includes("|")) {
        item.push(next.trim());
        i++;
        continue;
      }
      break;
    }
    items.push(item);
    if (i < lines.length && isBlank(lines[i]!)) {
      const after = lines.slice(i).findIndex((l) => !isBlank(l));
      if (after < 0) break;
      const candidate = lines[i + after]!;
      if (pattern.test(candidate) && indentOf(candidate) === baseIndent) {
        i += after;
        continue;
      }
      break;
    }
  }
  const rendered = items.map((item) => {
    const inner = renderBlocks(item, ctx);
    // Tight lists: the item's leading paragraph renders without <p>.
    const lead = /^<p>([\s\S]*?)<\/p>/.exec(inner);
    return `<li>${!loose && lead ? lead[1] + inner.slice(lead[0].length) : inner}</li>`;
  });
  const tag = ordered ? "ol" : "ul";
  const startAttr = ordered && startNumber !== 1 ? ` start="${startNumber}"` : "";
  return [`<${tag}${startAttr}>${rendered.join("")}</${tag}>`, i];
}

function splitRow(line: string): string[] {
  let row = line.trim();
  if (row.startsWith("|")) row = row.slice(1);
  if (row.endsWith("|") && !row.endsWith("\\|")) row = row.slice(0, -1);
  const cells: string[] = [];
  let current = "";
  let inCode = false;
  for (let k = 0; k < row.length; k++) {
    const ch = row[k]!;
    if (ch === "\\" && row[k + 1] === "|") {
      current += "|";
      k++;
    } else if (ch === "`") {
      inCode = !inCode;
      current += ch;
    } else if (ch === "|" && !inCode) {
      cells.push(current.trim());
      current = "";
    } else {
      current += ch;
    }
  }
  cells.push(current.trim());
  return cells;
}

function uniqueId(ctx: Context, base: string): string {
  const seen = ctx.usedIds.get(base) ?? 0;
  ctx.usedIds.set(base, seen + 1);
  return seen === 0 ? base : `${base}-${seen}`;
}

/** Inline text without Markdown markers (for heading ids and titles). */
export function stripInline(text: string): string {
  return text
    .replace(/`([^`]*)`/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\*\*([^*]+)\*\*/g, "$1")
    .replace(/\*([^*]+)\*/g, "$1");
}

function renderInline(text: string, ctx: Context): string {
  let out = "";
  let k = 0;
  while (k < text.length) {
    const ch = text[k]!;
    if (ch === "\\" && k + 1 < text.length && /[\\`*_[\]()#|<>!-]/.test(text[k + 1]!)) {
      out += escapeHtml(text[k + 1]!);
      k += 2;
      continue;
    }
    if (ch === "`") {
      let ticks = 1;
      while (text[k + ticks] === "`") ticks++;
      const marker = "`".repeat(ticks);
      const end = text.indexOf(marker, k + ticks);
      if (end > 0) {
        let code = text.slice(k + ticks, end).replace(/\n/g, " ");
        if (code.startsWith(" ") && code.endsWith(" ") && code.trim()) code = code.slice(1, -1);
        out += `<code>${escapeHtml(code)}</code>`;
        k = end + ticks;
        continue;
      }
    }
    if (ch === "!" && text[k + 1] === "[") {
      const image = parseLink(text, k + 1);
      if (image) {
        const src = ctx.options.resolveLink ? ctx.options.resolveLink(image.href) : image.href;
        ctx.links.push(src);
        out += `<img src="${escapeHtml(src)}" alt="${escapeHtml(stripInline(image.label))}">`;
        k = image.end;
        continue;
      }
    }
    if (ch === "[") {
      const link = parseLink(text, k);
      if (link) {
        const href = ctx.options.resolveLink ? ctx.options.resolveLink(link.href) : link.href;
        ctx.links.push(href);
        out += `<a href="${escapeHtml(href)}">${renderInline(link.label, ctx)}</a>`;
        k = link.end;
        continue;
      }
    }
    if (ch === "*" && text[k + 1] === "*") {
      const end = text.indexOf("**", k + 2);
      if (end > k + 2) {
        out += `<strong>${renderInline(text.slice(k + 2, end), ctx)}</strong>`;
        k = end + 2;
        continue;
      }
    }
    if (ch === "*" && text[k + 1] !== " " && text[k + 1] !== undefined) {
      const end = text.indexOf("*", k + 1);
      if (end > k + 1 && text[end - 1] !== " ") {
        out += `<em>${renderInline(text.slice(k + 1, end), ctx)}</em>`;
        k = end + 1;
        continue;
      }
    }
    if (ch === "\n") {
      out += "\n";
      k++;
      continue;
    }
    out += escapeHtml(ch);
    k++;
  }
  return out;
}

function parseLink(text: string, start: number): { label: string; href: string; end: number } | undefined {
  // [label](href) with balanced brackets in the label.
  let depth = 0;
  let k = start;
  for (; k < text.length; k++) {
    if (text[k] === "`") {
      const close = text.indexOf("`", k + 1);
      if (close > 0) k = close;
      continue;
    }
    if (text[k] === "[") depth++;
    else if (text[k] === "]" && --depth === 0) break;
  }
  if (k >= text.length || text[k + 1] !== "(") return undefined;
  const close = text.indexOf(")", k + 2);
  if (close < 0) return undefined;
  const href = text.slice(k + 2, close).trim();
  if (!href || /\s/.test(href)) return undefined;
  return { label: text.slice(start + 1, k), href, end: close + 1 };
}
