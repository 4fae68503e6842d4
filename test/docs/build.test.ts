// The docs build (issue 6): the site builds from the contract, carries every guide, every
// operation's error codes and every gap, and has no broken internal link. The link checker
// is also run on a site broken on purpose, so it is known to catch what it claims to.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { bound, contract, errorCodes, operations, schema, streamLimits, type JsonObject } from "../../src/contract/index.ts";
import { SAMPLE_LABEL, buildDocsSite } from "../../src/docs/build.ts";
import { checkSite, embeddedDefinition } from "../../src/docs/check.ts";
import { CONSOLE_APP, CONSOLE_SCRIPT } from "../../src/docs/console/bundle.ts";
import { ERROR_TABLE_CLASS, errorRows } from "../../src/docs/enrich.ts";
import { gapAnnotations } from "../../src/docs/gaps.ts";
import { PROJECT_DOCS, REQUIRED_GUIDES, renderGuide, summaryOf } from "../../src/docs/guides.ts";
import { REFERENCE_PAGE, knownRoutes, referenceOperations } from "../../src/docs/routes.ts";
import { chromiumPath } from "../../scripts/lib/chromium.ts";
import { at } from "../../scripts/lib/paths.ts";
import { htmlProse, markdownWords, repositoryPointers, seedMentions } from "../support/user-facing.ts";

const work = mkdtempSync(join(tmpdir(), "docs-build-test-"));
const site = join(work, "site");
const read = (file: string) => readFileSync(join(site, file), "utf8");
const sha = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");
const normalize = (s: string) => s.replace(/\s+/g, " ").trim();

let generatedBefore: string;
let contractBefore: string;
let reference: JsonObject;

beforeAll(async () => {
  generatedBefore = sha(at("generated/openapi.json")) + sha(at("generated/openapi.yaml"));
  contractBefore = JSON.stringify(contract);
  await buildDocsSite({ outDir: site });
  reference = embeddedDefinition(read(REFERENCE_PAGE)) as JsonObject;
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("docs build", () => {
  it("has no broken internal link and loads nothing from outside the site", () => {
    expect(checkSite(site, { referenceRoutes: knownRoutes(reference) })).toEqual([]);
  });

  it("renders every guide the issue asks for, linked from the home page and the reference", () => {
    const home = read("index.html");
    const overview = String((reference.info as JsonObject).description);
    expect(REQUIRED_GUIDES.length).toBeGreaterThan(0);
    for (const slug of REQUIRED_GUIDES) {
      const html = read(`guides/${slug}.html`);
      expect(html, slug).toMatch(/<h1 id="[^"]+">/);
      expect(home, slug).toContain(`href="guides/${slug}.html"`);
      expect(overview, slug).toContain(`](guides/${slug}.html)`);
    }
  });

  it("carries the project's simulator guide when docs/simulator.md exists, and getting started links to it", () => {
    if (!existsSync(at("docs/simulator.md"))) {
      expect(read("guides/getting-started.html")).toContain("<code>docs/simulator.md</code> in the repository");
      return;
    }
    expect(read("guides/simulator.html")).toMatch(/<h1 id="[^"]+">/);
    expect(read("guides/getting-started.html")).toContain('href="simulator.html"');
    expect(read("index.html")).toContain('href="guides/simulator.html"');
  });

  it("the reference inlines its renderer (nothing from a CDN) and embeds the whole contract", () => {
    const html = read(REFERENCE_PAGE);
    // One script file besides the inlined renderer: the try-it panel's, from the site itself.
    expect([...html.matchAll(/<script[^>]+src="([^"]*)"/g)].map((m) => m[1])).toEqual([CONSOLE_SCRIPT]);
    expect(existsSync(join(site, CONSOLE_SCRIPT)) && existsSync(join(site, CONSOLE_APP))).toBe(true);
    expect(html).not.toMatch(/<link[^>]+href="https?:/);
    expect(html).toContain("hydrate(__redoc_definition");
    expect(Object.keys(reference.paths as JsonObject)).toEqual(Object.keys(contract.paths as JsonObject));
    expect(Object.keys((reference.components as JsonObject).schemas as JsonObject)).toEqual(
      Object.keys((contract.components as JsonObject).schemas as JsonObject),
    );
    expect(read("openapi.json")).toBe(readFileSync(at("generated/openapi.json"), "utf8"));
  });

  it("every operation's description ends with the error codes it can return, status and meaning from the code table", () => {
    let tables = 0;
    for (const op of operations()) {
      const copy = ((reference.paths as JsonObject)[op.path] as JsonObject)[op.method] as JsonObject;
      const description = String(copy.description);
      const codes = [...op.op.responses ? Object.entries(op.op.responses as JsonObject) : []].filter(([s]) => /^[45]/.test(s));
      if (codes.length === 0) continue;
      // Collapsed (closed by default) so the request body comes first on the page.
      const table = new RegExp(`<details class="${ERROR_TABLE_CLASS}">\\n<summary><strong>Error codes</strong> \\((\\d+)\\)[^\\n]*</summary>\\n\\n[\\s\\S]*\\n\\n</details>$`);
      expect(description, op.operationId).toMatch(table);
      expect(Number(table.exec(description)![1]), op.operationId).toBe(errorRows(op.op).length);
      tables++;
      for (const row of errorRows(op.op)) {
        const meaning = row.form === "envelope" ? errorCodes.get(row.code)!.meaning : undefined;
        const line = description.split("\n").find((l) => l.startsWith(`| ${row.status} |`) && l.includes(`\`${row.code}\``));
        expect(line, `${op.operationId}: ${row.status} ${row.code}`).toBeDefined();
        if (meaning) expect(normalize(line!), row.code).toContain(normalize(meaning).replace(/\|/g, "\\|"));
      }
    }
    expect(tables).toBeGreaterThan(0);
  });

  it("every error example of every operation is in its table (one per code, named after the code)", () => {
    let examples = 0;
    for (const op of operations()) {
      const listed = new Set(errorRows(op.op).map((r) => `${r.status}:${r.code}`));
      for (const [status, response] of Object.entries(op.op.responses as JsonObject)) {
        if (!/^[45]/.test(status)) continue;
        const resolved = (response as JsonObject).$ref
          ? ((contract.components as JsonObject).responses as JsonObject)[String((response as JsonObject).$ref).split("/").pop()!]
          : response;
        for (const media of Object.values(((resolved as JsonObject).content as JsonObject) ?? {})) {
          for (const name of Object.keys(((media as JsonObject).examples as JsonObject) ?? {})) {
            expect(listed, `${op.operationId}`).toContain(`${status}:${name}`);
            examples++;
          }
        }
      }
    }
    expect(examples).toBeGreaterThan(0);
  });

  it("the errors guide lists every error code with its status", () => {
    const html = read("guides/errors.html");
    expect(errorCodes.size).toBeGreaterThan(0);
    for (const row of errorCodes.values()) {
      expect(html, row.code).toMatch(new RegExp(`<td><code>${row.code}</code></td><td>${row.status}</td>`));
    }
  });

  it("the errors guide's 'Listed by' links every operation that lists a code, inline or through its own section", () => {
    const html = read("guides/errors.html");
    const operationLinks = (fragment: string) => [...fragment.matchAll(/href="\.\.\/reference\.html(#\/[^"]+)"/g)].map((m) => m[1]!);
    const routeOf = new Map(referenceOperations(reference).map((o) => [o.operationId, o.route]));
    let sections = 0;
    for (const row of errorCodes.values()) {
      const listing = operations().filter((op) => errorRows(op.op).some((r) => r.form === "envelope" && r.code === row.code));
      const expected = listing.map((op) => routeOf.get(op.operationId)!);
      const cell = new RegExp(`<td><code>${row.code}</code></td><td>${row.status}</td><td>[\\s\\S]*?</td><td>([\\s\\S]*?)</td>`).exec(html)![1]!;
      const many = /^<a href="#([\w-]+)">(\d+) operations<\/a>$/.exec(cell);
      if (!many) {
        expect(operationLinks(cell), row.code).toEqual(expected);
        continue;
      }
      sections++;
      expect(Number(many[2]), row.code).toBe(listing.length);
      const section = new RegExp(`<h3 id="${many[1]}">[\\s\\S]*?</h3>\\s*<p>([\\s\\S]*?)</p>`).exec(html);
      expect(section, `${row.code}: #${many[1]}`).not.toBeNull();
      expect(operationLinks(section![1]!), row.code).toEqual(expected);
    }
    expect(sections).toBeGreaterThan(5);
    expect(html).not.toMatch(/<td>\d+ operations<\/td>/);
  });

  it("every card of the home page carries its guide's summary (the first paragraph, which may start with inline code)", () => {
    const home = read("index.html");
    const cards = [...home.matchAll(/<li><a href="guides\/([\w-]+)\.html">[^<]+<\/a><p>([^<]*)<\/p><\/li>/g)];
    expect(cards.map((c) => c[1]).sort()).toEqual([...REQUIRED_GUIDES, ...PROJECT_DOCS.filter((d) => existsSync(at(d.path))).map((d) => d.slug)].sort());
    expect(cards).not.toHaveLength(0);
    for (const [, slug, summary] of cards) expect(summary!.trim().length, slug).toBeGreaterThan(40);
    expect(summaryOf("# The hub simulator\n\n`npm start` runs a local simulator.\n\n## Run")).toBe("npm start runs a local simulator.");
    expect(summaryOf("# Title\n\n```sh\nnpm start\n```\n")).toBe("");
  });

  it("no page speaks of the project's history (Part 1, Part 2, issue 12) instead of what a user sees", () => {
    const pages = ["index.html", ...REQUIRED_GUIDES.map((g) => `guides/${g}.html`), ...PROJECT_DOCS.map((d) => `guides/${d.slug}.html`)];
    const history = (text: string) => /.{0,40}\b(parts? [12]|issues? \d+)\b.{0,40}/i.exec(text)?.[0];
    expect(pages.filter((p) => existsSync(join(site, p)))).not.toHaveLength(0);
    for (const page of pages.filter((p) => existsSync(join(site, p)))) expect(history(read(page)), page).toBeUndefined();
    expect(history(JSON.stringify(reference)), REFERENCE_PAGE).toBeUndefined();
  });

  it("no page speaks from the repository: no path, document, script or root of it, and no \"seed\" (the API's requirements, to a reader) outside code and the requirements' own quoted words", () => {
    const quotes = [...gapAnnotations(), ...gapAnnotations(undefined, "x-no-bound")].map((a) => a.quote);
    expect(quotes.length).toBeGreaterThan(0);
    const pages = readdirSync(site, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".html"));
    expect(pages.length).toBeGreaterThan(REQUIRED_GUIDES.length);
    const found: string[] = [];
    for (const page of pages) {
      const prose = htmlProse(read(page));
      for (const f of [...repositoryPointers(prose), ...seedMentions(prose, quotes)]) found.push(`${page}: ${f}`);
    }
    // The reference renders the contract's descriptions from its embedded copy, in the browser.
    const described: [string, string][] = [];
    const walk = (node: unknown, path: string): void => {
      if (!node || typeof node !== "object") return;
      for (const [key, value] of Object.entries(node)) {
        if (typeof value === "string" && ["description", "summary", "title", "x-displayName"].includes(key)) described.push([`${path}/${key}`, value]);
        else walk(value, `${path}/${key}`);
      }
    };
    walk(reference, "");
    expect(described.length).toBeGreaterThan(100);
    for (const [where, text] of described) {
      const prose = markdownWords(text.replace(/<[^>]+>/g, " "));
      for (const f of [...repositoryPointers(prose), ...seedMentions(prose, quotes)]) found.push(`${REFERENCE_PAGE} ${where}: ${f}`);
    }
    expect(found).toEqual([]);
  });

  it("every gap the contract records is on the not-shown page and written into the reference", () => {
    const text = (html: string) =>
      normalize(html.replace(/<[^>]+>/g, "").replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&"));
    const page = text(read("guides/not-shown.html"));
    const copy = JSON.stringify(reference);
    const annotations = gapAnnotations();
    expect(annotations.length).toBeGreaterThan(0);
    for (const { path, quote } of annotations) {
      expect(page, path.join("/")).toContain(normalize(quote).replace(/`/g, ""));
      expect(copy, path.join("/")).toContain(JSON.stringify(`**Not shown in the requirements:** ${normalize(quote)}`).slice(1, -1));
    }
  });

  it("GAP-2: every request input without a stated bound is on the not-shown page, with the words that name it", () => {
    const page = normalize(read("guides/not-shown.html").replace(/<[^>]+>/g, "").replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&"));
    const annotations = gapAnnotations(undefined, "x-no-bound");
    expect(annotations.length).toBeGreaterThan(0);
    for (const { path, quote } of annotations) expect(page, path.join("/")).toContain(normalize(quote).replace(/`/g, ""));
  });

  it("every operation and webhook carries its code sample (docs/samples/<operationId>.ts) word for word", () => {
    expect(referenceOperations(reference).length).toBeGreaterThan(0);
    for (const op of referenceOperations(reference)) {
      const group = op.webhook ? "webhooks" : "paths";
      const copy = ((reference[group] as JsonObject)[op.path] as JsonObject)[op.method.toLowerCase()] as JsonObject;
      const samples = copy["x-codeSamples"] as { lang: string; label: string; source: string }[] | undefined;
      expect(samples, op.operationId).toHaveLength(1);
      expect(samples![0]!.source.trimEnd(), op.operationId).toBe(readFileSync(at(`docs/samples/${op.operationId}.ts`), "utf8").trimEnd());
      expect(samples![0]!.label).toBe(SAMPLE_LABEL);
    }
    // Redoc shows only the sample labels its configuration lists.
    const config = parse(readFileSync(at("src/docs/redocly.yaml"), "utf8")) as { openapi: { codeSamples: { languages: { label?: string }[] } } };
    expect(config.openapi.codeSamples.languages[0]!.label).toBe(SAMPLE_LABEL);
  });

  it("every operation and webhook has a route in the reference", () => {
    const routes = knownRoutes(reference);
    const ops = referenceOperations(reference);
    expect(ops.length).toBe(operations().length + Object.keys((contract.webhooks as JsonObject) ?? {}).length);
    expect(ops.length).toBeGreaterThan(0);
    for (const op of ops) expect(routes, op.operationId).toContain(op.route);
  });

  it("the numbers the guides quote are the contract's (heartbeat, retention, streams, batch, page, upload)", () => {
    const guide = (slug: string) => readFileSync(at(`docs/guides/${slug}.md`), "utf8");
    const { heartbeatSeconds, retentionDays, maxStreamsPerKey } = streamLimits();
    const batch = bound("GenerationStatusRequest", "ids", "maxItems");
    const page = schema("PageLimit");
    const uploadMiB = bound("UploadRequest", "content_length", "maximum") / 1024 / 1024;
    expect(guide("events")).toContain(`every ${heartbeatSeconds} seconds`);
    expect(guide("events")).toContain(`${retentionDays} days`);
    expect(guide("events")).toContain(`At most ${maxStreamsPerKey} concurrent streams per key`);
    expect(guide("events")).toContain(`up to ${batch} ids per call`);
    expect(guide("getting-started")).toContain(`up to ${batch} ids per call`);
    expect(guide("rate-limits")).toContain(`event streams (${maxStreamsPerKey} per key`);
    expect(guide("rate-limits")).toContain(`batch status reads (${batch} ids)`);
    expect(guide("rate-limits")).toContain(`\`limit\` ${String(page.minimum)}..${String(page.maximum)}, default ${String(page.default)}`);
    expect(guide("rate-limits")).toContain(`uploads (${uploadMiB} MiB)`);
    expect(guide("uploads")).toContain(`The ceiling is ${uploadMiB} MiB`);
  });

  it("leaves generated/ and the in-memory contract untouched", () => {
    expect(sha(at("generated/openapi.json")) + sha(at("generated/openapi.yaml"))).toBe(generatedBefore);
    expect(JSON.stringify(contract)).toBe(contractBefore);
  });
});

describe("docs build failures", () => {
  const guides = at("docs/guides");

  it("a missing guide fails the build", async () => {
    const dir = join(work, "guides-missing");
    cpSync(guides, dir, { recursive: true });
    rmSync(join(dir, "events.md"));
    await expect(buildDocsSite({ outDir: join(work, "out-missing"), guidesDir: dir })).rejects.toThrow(/Missing guide.*events\.md/);
  });

  it("a guide linking to an operation, schema, guide or anchor that does not exist fails the build", async () => {
    for (const [link, why] of [
      ["op:submitGenerashun", /No operation submitGenerashun/],
      ["schema:NoSuchSchema", /No schema NoSuchSchema/],
      ["nowhere.md", /no guide docs\/guides\/nowhere\.md/],
      ["../README.md", /write op:/],
      ["errors.md#no-such-section", /no id "no-such-section" in guides\/errors\.html/],
    ] as const) {
      const dir = join(work, `guides-broken-${Math.random().toString(36).slice(2)}`);
      cpSync(guides, dir, { recursive: true });
      writeFileSync(join(dir, "idempotency.md"), `${readFileSync(join(dir, "idempotency.md"), "utf8")}\n\nSee [this](${link}).\n`);
      await expect(buildDocsSite({ outDir: join(work, `out-${link.length}-${Math.random()}`), guidesDir: dir }), link).rejects.toThrow(why);
    }
  });

  it("a guide without a summary paragraph after its title (its card on the home page) fails the build", async () => {
    const dir = join(work, "guides-no-summary");
    cpSync(guides, dir, { recursive: true });
    writeFileSync(join(dir, "idempotency.md"), readFileSync(join(dir, "idempotency.md"), "utf8").replace(/^(# .*\n+)[^\n]+\n/, "$1"));
    await expect(buildDocsSite({ outDir: join(work, "out-no-summary"), guidesDir: dir })).rejects.toThrow(/idempotency\.md: .*summary/);
  });

  it("a code sample for an operation the contract does not have fails the build", async () => {
    const dir = join(work, "samples-unknown");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "noSuchOperation.ts"), "export {};\n");
    await expect(buildDocsSite({ outDir: join(work, "out-samples"), samplesDir: dir })).rejects.toThrow(/no operation noSuchOperation/);
  });

  it("refuses to clear a folder it did not build", async () => {
    const dir = join(work, "precious");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "notes.txt"), "mine");
    await expect(buildDocsSite({ outDir: dir })).rejects.toThrow(/refusing to clear it/);
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("mine");
  });
});

describe("project documents in the site", () => {
  it("their links to files of the repository become paths, links to carried documents stay links", () => {
    const source = {
      slug: "simulator",
      file: "docs/simulator.md",
      projectDoc: "docs/simulator.md",
      markdown: "# Sim\n\nSee [the CLI](../src/simulator/cli.ts), [the contract](../generated/openapi.json#x), [it](simulator.md) and [the web](https://example.com/).",
    };
    const page = renderGuide(source, new Set(["simulator"]), new Map([["docs/simulator.md", "simulator"]]));
    expect(page.html).toContain("the CLI (<code>src/simulator/cli.ts</code> in the repository)");
    expect(page.html).toContain("the contract (<code>generated/openapi.json</code> in the repository)");
    expect(page.html).toContain('<a href="simulator.html">it</a>');
    expect(page.html).toContain('<a href="https://example.com/">the web</a>');
  });
});

describe("site link checker", () => {
  it("reports broken files, anchors, routes, absolute addresses and outside loads", () => {
    const dir = join(work, "broken-site");
    mkdirSync(join(dir, "guides"), { recursive: true });
    writeFileSync(
      join(dir, "index.html"),
      `<a href="guides/a.html#there">ok</a><a href="guides/missing.html">1</a><a href="guides/a.html#nowhere">2</a>` +
        `<a href="/docs/guides/a.html">3</a><script src="https://cdn.example/x.js"></script><a href="https://example.com/">fine</a>`,
    );
    writeFileSync(join(dir, "guides/a.html"), `<h2 id="there">x</h2><a href="../${REFERENCE_PAGE}#/nope/nope">4</a><a href="../../up.html">5</a>`);
    writeFileSync(
      join(dir, REFERENCE_PAGE),
      `<div id="redoc"></div><script type="module">\nconst __redoc_definition = ${JSON.stringify({ info: { description: "[g](guides/gone.html) [ok](guides/a.html)" } })};\n</script>` +
        `<img src="https://cdn.redoc.ly/redoc/logo-mini.svg">`,
    );
    const problems = checkSite(dir, { referenceRoutes: new Set(["#/generations/submitgeneration"]) });
    const summary = problems.map((p) => `${p.page} ${p.href} ${p.problem}`);
    expect(summary).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^index\.html guides\/missing\.html no file guides\/missing\.html/),
        expect.stringMatching(/^index\.html guides\/a\.html#nowhere no id "nowhere"/),
        expect.stringMatching(/^index\.html \/docs\/guides\/a\.html absolute address/),
        expect.stringMatching(/^index\.html https:\/\/cdn\.example\/x\.js loaded from outside the site/),
        expect.stringMatching(/^guides\/a\.html \.\.\/reference\.html#\/nope\/nope no route #\/nope\/nope/),
        expect.stringMatching(/^guides\/a\.html \.\.\/\.\.\/up\.html points above the site root/),
        expect.stringMatching(/^reference\.html guides\/gone\.html no file guides\/gone\.html/),
        expect.stringMatching(/^reference\.html .*loaded from outside the site/),
      ]),
    );
    expect(problems).toHaveLength(9);
  });
});

describe("npm run docs: what it says", () => {
  it("the reference page's weight and its first render in Chromium (or why it was not measured)", () => {
    const out = mkdtempSync(join(tmpdir(), "docs-figures-"));
    try {
      const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/build-docs.ts", "--out", out], { cwd: at("."), encoding: "utf8", env: { ...process.env, DOCS_FIGURE_ROUNDS: "1" } });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^reference page weight: \d+\.\d\d MiB in \d+ files, as served \(reference\.html [\d.]+ MiB, assets\/console\.js [\d.]+ KiB.*\); a try-it panel's first open loads assets\/console-app\.js \([\d.]+ KiB\)$/m);
      expect(r.stdout).toMatch(chromiumPath() ? /^first render in Chromium \(reference\.html#\/generations\/submitgeneration, median of 1 cold load\): first paint \d+ ms, the operation shown at \d+ ms \(load average [\d. ]+\)$/m : /^reference page: not measured \(no Chromium/m);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("npm run docs: what it says when it cannot build", () => {
  const docs = (args: string[]) => {
    const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/build-docs.ts", ...args], { cwd: at("."), encoding: "utf8" });
    return { code: r.status, out: r.stdout + r.stderr };
  };

  it("an unknown flag or a missing folder is the usage text (exit 2); a folder it cannot write is one line (exit 1); never a stack trace", () => {
    const flag = docs(["--bogus"]);
    expect(flag.code).toBe(2);
    expect(flag.out).toMatch(/^Unknown option '--bogus'\n\nUsage: npm run docs -- \[--out <dir>\]/);
    const empty = docs(["--out", ""]);
    expect(empty.code).toBe(2);
    expect(empty.out).toContain("--out needs a folder");
    const unwritable = docs(["--out", join(at("package.json"), "site")]);
    expect(unwritable.code).toBe(1);
    expect(unwritable.out.trim()).toMatch(/^The docs could not be built into .*package\.json\/site: ENOTDIR/);
    for (const r of [flag, empty, unwritable]) expect(r.out).not.toMatch(/\n\s+at /);
  });
});
