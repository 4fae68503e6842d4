// Builds the reference docs into a static folder that works offline and under any mount
// path (the simulator serves it at /docs/):
//   index.html            landing page: the guides and the reference
//   reference.html        the API reference (Redoc, scripts inlined: nothing from a CDN),
//                         rendered from a docs copy of the bundle (see enrich.ts)
//   guides/<slug>.html    the guides, from docs/guides/*.md
//   openapi.json/.yaml    the contract as published (generated/, unchanged)
//   assets/               the site's stylesheet, the renderer's logo, and the try-it
//                         panel of every operation (console.js, console.css: console/)
//   images/               the pictures of the project's documents (docs/images/)
// The build fails on a missing guide, a sample for an unknown operation, or any broken
// internal link (check.ts).
import { execFile } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { contract, type JsonObject } from "../contract/index.ts";
import { checkSite } from "./check.ts";
import { buildConsole } from "./console/bundle.ts";
import { docsDocument, type CodeSample } from "./enrich.ts";
import { assertGapLinks, gaps } from "./gaps.ts";
import { PROJECT_IMAGES, readGuides, readProjectDocs, renderGuide, type RenderedGuide } from "./guides.ts";
import { SITE_CSS, page } from "./layout.ts";
import { escapeHtml } from "./markdown.ts";
import { REFERENCE_PAGE, knownRoutes, referenceOperations } from "./routes.ts";
import { SITE_MARKER, markerText } from "./site-format.ts";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const run = promisify(execFile);

export interface BuildDocsOptions {
  /** Folder to build into. It must be empty, absent, or a site built before by this function. */
  outDir: string;
  /** Folder of the guides (default docs/guides). */
  guidesDir?: string;
  /** Folder of the code samples (default docs/samples). */
  samplesDir?: string;
}


/** The label the reference shows on every code sample. */
export const SAMPLE_LANG = "TypeScript";
export const SAMPLE_LABEL = "TypeScript client";

/** Code samples by operationId, from `<samplesDir>/<operationId>.ts`. */
export function readSamples(samplesDir: string): Map<string, CodeSample[]> {
  const samples = new Map<string, CodeSample[]>();
  if (!existsSync(samplesDir)) return samples;
  const known = new Set(referenceOperations().map((o) => o.operationId));
  for (const file of readdirSync(samplesDir).filter((f) => f.endsWith(".ts")).sort()) {
    const operationId = file.slice(0, -3);
    if (!known.has(operationId)) throw new Error(`${samplesDir}/${file}: no operation ${operationId} in the contract`);
    const source = readFileSync(join(samplesDir, file), "utf8").trimEnd() + "\n";
    samples.set(operationId, [{ lang: SAMPLE_LANG, label: SAMPLE_LABEL, source }]);
  }
  return samples;
}

function prepareOutDir(outDir: string): void {
  if (existsSync(outDir)) {
    const entries = readdirSync(outDir);
    if (entries.length > 0 && !entries.includes(SITE_MARKER)) {
      throw new Error(`${outDir} is not empty and was not built by buildDocsSite; refusing to clear it`);
    }
    rmSync(outDir, { recursive: true, force: true });
  }
  mkdirSync(join(outDir, "guides"), { recursive: true });
  mkdirSync(join(outDir, "assets"), { recursive: true });
  writeFileSync(join(outDir, SITE_MARKER), markerText(false));
}

const REDOC_LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="52" height="16" viewBox="0 0 52 16"><text x="0" y="12.5" font-family="system-ui, sans-serif" font-size="13" font-weight="600" fill="#0044d4">Redoc</text></svg>\n`;

/** Renders the reference page with Redoc (`redocly build-docs --inlineBundle`). */
async function renderReference(doc: JsonObject, outDir: string): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "hub-docs-"));
  try {
    const input = join(work, "openapi.json");
    writeFileSync(input, JSON.stringify(doc));
    const cli = join(dirname(createRequire(import.meta.url).resolve("@redocly/cli/package.json")), "bin/cli.js");
    const output = join(outDir, REFERENCE_PAGE);
    const args = [
      cli,
      "build-docs",
      input,
      "--inlineBundle",
      "--config",
      join(here, "redocly.yaml"),
      "--template",
      join(here, "template.hbs"),
      "--title",
      `${String((doc.info as JsonObject).title)}: API reference`,
      "-o",
      output,
    ];
    try {
      await run(process.execPath, args, {
        cwd: work,
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string; message: string };
      throw new Error(`redocly build-docs failed: ${err.message}\n${err.stdout ?? ""}\n${err.stderr ?? ""}`);
    }
    // Redoc's attribution shows a logo from its CDN; serve a local one instead.
    const html = readFileSync(output, "utf8");
    const localized = html.replace(/https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(-full)?\.svg/g, "assets/redoc-logo.svg");
    writeFileSync(output, localized);
    writeFileSync(join(outDir, "assets/redoc-logo.svg"), REDOC_LOGO);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

function landingPage(guides: RenderedGuide[], apiTitle: string): string {
  const info = contract.info as JsonObject;
  const operations = referenceOperations();
  const cards = guides
    .map((g) => `<li><a href="guides/${g.slug}.html">${escapeHtml(g.title)}</a><p>${escapeHtml(g.summary)}</p></li>`)
    .join("");
  const body = `<h1>${escapeHtml(apiTitle)} <small>${escapeHtml(String(info.version))}</small></h1>
<p>${escapeHtml(String(info.summary ?? ""))}</p>
<p><a href="${REFERENCE_PAGE}"><strong>API reference</strong></a>: every operation (${count(operations.filter((o) => !o.webhook).length, "operation")}
and ${count(operations.filter((o) => o.webhook).length, "webhook")}), schema, error code and gap of the contract, with a code sample
per operation and the error codes each one can return.
New here? Start with <a href="guides/getting-started.html">Getting started</a>.</p>
<h2 id="guides">Guides</h2>
<ul class="cards">${cards}</ul>
<h2 id="contract">The contract</h2>
<p>The published OpenAPI 3.1 document: <a href="openapi.json">openapi.json</a>, <a href="openapi.yaml">openapi.yaml</a>.</p>`;
  return page({ title: "Home", base: "", guides, body, apiTitle });
}

export async function buildDocsSite(options: BuildDocsOptions): Promise<void> {
  const outDir = resolve(options.outDir);
  const guidesDir = options.guidesDir ?? join(root, "docs/guides");
  const samplesDir = options.samplesDir ?? join(root, "docs/samples");
  const apiTitle = String((contract.info as JsonObject).title);

  // Everything that can fail on the sources fails before the folder is touched.
  const sources = [...readGuides(guidesDir), ...readProjectDocs(root)];
  const slugs = new Set(sources.map((s) => s.slug));
  if (slugs.size !== sources.length) throw new Error("A project document has the name of a guide");
  const projectPages = new Map(sources.filter((s) => s.projectDoc).map((s) => [s.projectDoc!, s.slug]));
  const guides = sources.map((s) => renderGuide(s, slugs, projectPages));
  const samples = readSamples(samplesDir);
  assertGapLinks(gaps());
  const doc = docsDocument({
    samples,
    guides: guides.map((g) => ({ href: `guides/${g.slug}.html`, title: g.title })),
    gapsHref: "guides/not-shown.html",
    errorsHref: "guides/errors.html",
  });

  prepareOutDir(outDir);
  const reference = renderReference(doc, outDir);
  const panel = buildConsole(outDir);
  for (const g of guides) {
    const html = page({ title: g.title, base: "../", guides, current: g.slug, headings: g.headings, body: g.html, apiTitle });
    writeFileSync(join(outDir, "guides", `${g.slug}.html`), html);
  }
  writeFileSync(join(outDir, "index.html"), landingPage(guides, apiTitle));
  writeFileSync(join(outDir, "assets/site.css"), SITE_CSS);
  copyFileSync(join(root, "generated/openapi.json"), join(outDir, "openapi.json"));
  copyFileSync(join(root, "generated/openapi.yaml"), join(outDir, "openapi.yaml"));
  // The pictures the project's documents show (the simulator guide's screenshots).
  if (existsSync(join(root, PROJECT_IMAGES))) cpSync(join(root, PROJECT_IMAGES), join(outDir, "images"), { recursive: true });
  await reference;
  await panel;

  const problems = checkSite(outDir, { referenceRoutes: knownRoutes(doc) });
  if (problems.length) {
    throw new Error(`The docs site has ${problems.length} broken link(s):\n${problems.map((p) => `  ${p.page}: ${p.href}: ${p.problem}`).join("\n")}`);
  }
  writeFileSync(join(outDir, SITE_MARKER), markerText());
}
