// The report as a terminal table, as JSON, and as JUnit XML for CI.
import type { Failure, RuleRow, Step } from "../judge/results.ts";
import { floorShortfall, renderStatusTable, ruleCoverageText } from "./coverage.ts";
import { exitCode, type Report } from "./runner.ts";
import type { GeneratedReport } from "../facts/generated.ts";
import { onlyMatches } from "../judge/results.ts";

const VERDICT: Record<RuleRow["verdict"], string> = { pass: "PASS", fail: "FAIL", "n/a": "n/a " };

/** A rule's title in lines of at most `width` characters, broken between words (never cut: the whole rule is what the row checks). */
function wrapped(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.replace(/\s+/g, " ").trim().split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

function credentials(report: Report): string {
  return Object.entries(report.requests.byCredential).map(([k, v]) => `${k} ${v}`).join(", ");
}

/** ` [listGenerations (GET /v1/generations): GET /v1/generations?limit=101 -> 200, request id …]` */
function citation(f: Failure): string {
  const request = f.request ? (f.operation ? `${f.operation}: ${f.request}` : f.request) : undefined;
  const where = [request, f.requestId ? `request id ${f.requestId}` : undefined].filter(Boolean).join(", ");
  return where ? ` [${where}]` : "";
}

/** The requests that led to a failure (a stateful sequence), numbered, each with its curl line. */
function stepLines(steps: readonly Step[] | undefined, indent: string): string[] {
  if (!steps?.length) return [];
  const out = [`${indent}after ${steps.length} request(s) of its sequence:`];
  steps.forEach((st, i) => {
    out.push(`${indent}  ${i + 1}. ${st.step}: ${st.request}${st.requestId ? `, request id ${st.requestId}` : ""}`);
    if (st.curl) out.push(`${indent}     $ ${st.curl}`);
  });
  return out;
}

/** The rows of the rules the run judged: all, or those `--only` chose. */
function judgedRows(report: Report): RuleRow[] {
  const only = report.only;
  return only?.length ? report.rows.filter((row) => onlyMatches(row.id, only)) : report.rows;
}

/** `161 rules`, or `1 rule selected (--only PAGE-3)`. */
function judgedCount(report: Report): string {
  const n = judgedRows(report).length;
  return `${n} rule${n === 1 ? "" : "s"}${report.only?.length ? ` selected (--only ${report.only.join(",")})` : ""}`;
}

export interface TableOptions {
  /** Show every rule (default: passes and failures, and one line listing the n/a ids per reason). */
  all?: boolean;
  /** Add the table of statuses by operation (default: one line counting them). */
  coverage?: boolean;
  width?: number;
}

export function renderTable(report: Report, options: TableOptions = {}): string {
  const width = options.width ?? 100;
  const out: string[] = [];
  const m = report.mode;
  out.push(`Generation Hub conformance: ${report.target}`);
  out.push(`  writes ${m.writes ? "allowed" : "not allowed"}, spending ${m.spend ? "allowed" : "not allowed"}, second account ${m.otherAccount ? "given" : "not given"}, extra keys: ${m.roles.length ? m.roles.join(", ") : "none"}${m.scopedKeys ? `, ${m.scopedKeys} key(s) with fewer scopes` : ""}${m.staticMock ? ", static mock" : ""}${m.prism ? ", through prism proxy" : ""}`);
  out.push(`  site session ${m.session}, OAuth token ${m.oauthToken ? "given" : "not given"}, OAuth auto-consent ${m.oauthAutoConsent ? "declared" : "not declared"}`);
  out.push("");
  let section = "";
  const hidden = new Map<string, string[]>();
  for (const row of judgedRows(report)) {
    if (row.verdict === "n/a" && !options.all) {
      const key = row.reason ?? "";
      hidden.set(key, [...(hidden.get(key) ?? []), row.id]);
      continue;
    }
    if (row.section !== section) {
      section = row.section;
      out.push(section);
    }
    const [first, ...more] = wrapped(row.rule, Math.max(20, width - 18));
    out.push(`  ${VERDICT[row.verdict]}  ${row.id.padEnd(9)} ${first}`, ...more.map((line) => `${" ".repeat(18)}${line}`));
    for (const f of row.failures) {
      out.push(`        - ${f.message}${citation(f)}`);
      if (f.curl) out.push(`          $ ${f.curl}`);
      out.push(...stepLines(f.steps, "          "));
    }
    if (row.reason) out.push(`        (${row.reason})`);
  }
  if (hidden.size > 0) {
    out.push("");
    out.push("Not applicable in this run:");
    for (const [reason, ids] of hidden) out.push(`  ${ids.join(", ")}: ${reason}`);
  }
  if (report.prism) {
    out.push("");
    const response = report.prism.findings.filter((f) => f.location[0] === "response");
    const request = report.prism.findings.filter((f) => f.location[0] !== "response");
    out.push(`Prism proxy (second opinion): ${response.length} response violation(s), ${request.length} request violation(s) (${request.filter((f) => f.deliberate).length} on requests the suite made invalid on purpose)`);
    for (const f of response) out.push(`  - ${f.request}${f.requestId ? ` [request id ${f.requestId}]` : ""}: ${f.location.join(".")} ${f.message}`);
    for (const f of request.filter((x) => !x.deliberate)) out.push(`  - request ${f.request}: ${f.location.join(".")} ${f.message}`);
  }
  if (report.generated) out.push("", ...renderGenerated(report.generated));
  if (report.errors.length > 0) {
    out.push("");
    out.push("Checks that could not complete:");
    for (const e of report.errors) out.push(`  - ${e.check}: ${e.message}`);
  }
  if (report.stopped) {
    out.push("");
    out.push(`Stopped early: ${report.stopped}`);
  }
  out.push("");
  const statuses = report.coverage.statuses;
  if (options.coverage) out.push(...renderStatusTable(statuses));
  else out.push(`Statuses: ${statuses.observed} of ${statuses.declared} declared (operation, status) pairs seen (--coverage for the table)`);
  const shortfall = floorShortfall(report.coverage.rules);
  if (shortfall) out.push(`Coverage under its floor: ${shortfall}`);
  out.push("");
  const s = report.summary;
  const rules = report.coverage.rules;
  const floor = rules.floor !== undefined ? ` (floor ${rules.floor}%)` : "";
  out.push(`${exitCode(report) === 0 ? "PASSED" : "FAILED"}: ${s.pass} pass, ${s.fail} fail, ${s.notApplicable} n/a of ${judgedCount(report)}; ${ruleCoverageText(rules)}${floor} · ${report.requests.total} requests (${credentials(report)}), waited ${report.requests.waitedSeconds} s, ${(report.durationMs / 1000).toFixed(1)} s`);
  return out.join("\n");
}

/** The generated inputs: what was sent per operation, what was found, what was not generated and why. */
function renderGenerated(g: GeneratedReport): string[] {
  const sum = (f: (o: GeneratedReport["operations"][number]) => number) => g.operations.reduce((n, o) => n + f(o), 0);
  const out = [`Generated inputs (seed ${g.seed}, up to ${g.perOperation} per operation; the same seed sends the same requests): ${sum((o) => o.cases)} cases (${sum((o) => o.valid)} valid, ${sum((o) => o.invalid)} with one fault) to ${g.operations.length} operations, ${sum((o) => o.requests)} requests in all (shrinking and cleanup included), ${sum((o) => o.findings)} finding(s)`];
  const width = Math.max(0, ...g.operations.map((o) => o.operationId.length));
  for (const o of g.operations) out.push(`  ${o.operationId.padEnd(width)}  ${o.cases} cases (${o.valid} valid, ${o.invalid} invalid)${o.findings > 0 ? `: ${o.findings} finding(s) in ${o.failingCases} case(s)` : ""}`);
  const skipped = new Map<string, string[]>();
  for (const s of g.skipped) skipped.set(s.reason, [...(skipped.get(s.reason) ?? []), s.operationId]);
  for (const [reason, ids] of skipped) out.push(`  not generated: ${ids.join(", ")}: ${reason}`);
  const seqs = g.sequences ?? [];
  if (seqs.length > 0) {
    out.push(`Stateful sequences (the contract's links; the same seed walks them alike): ${seqs.length} sequence(s), ${seqs.reduce((n, x) => n + x.requests, 0)} requests, ${seqs.reduce((n, x) => n + x.findings, 0)} finding(s)`);
    for (const x of seqs) out.push(`  ${x.name}: ${x.requests} requests${x.findings > 0 ? `, ${x.findings} finding(s)` : ""}${x.skipped ? ` (${x.skipped})` : ""}`);
  }
  return out;
}

export function renderJson(report: Report): string {
  return JSON.stringify(report, null, 2);
}

function xml(text: string): string {
  return text.replace(/[<>&"']/g, (ch) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[ch]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");
}

export function renderJunit(report: Report): string {
  const sections = new Map<string, RuleRow[]>();
  const rows = judgedRows(report);
  for (const row of rows) sections.set(row.section, [...(sections.get(row.section) ?? []), row]);
  const lines: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const prismFailures = report.prism?.findings.filter((f) => f.location[0] === "response") ?? [];
  const total = rows.length + (report.prism ? 1 : 0) + (report.coverage.rules.floor !== undefined ? 1 : 0);
  const failures = report.summary.fail + (prismFailures.length > 0 ? 1 : 0) + (report.coverage.rules.met ? 0 : 1);
  lines.push(`<testsuites name="conformance" tests="${total}" failures="${failures}" errors="${report.errors.length}" skipped="${report.summary.notApplicable}" time="${(report.durationMs / 1000).toFixed(3)}">`);
  for (const [section, rows] of sections) {
    const f = rows.filter((r) => r.verdict === "fail").length;
    const s = rows.filter((r) => r.verdict === "n/a").length;
    lines.push(`  <testsuite name="${xml(`conformance: ${section}`)}" tests="${rows.length}" failures="${f}" errors="0" skipped="${s}" timestamp="${report.startedAt}">`);
    for (const row of rows) {
      lines.push(`    <testcase classname="${xml(`conformance.${section}`)}" name="${xml(`${row.id}: ${row.rule}`)}" time="0">`);
      if (row.verdict === "fail") {
        const body = row.failures.map((x) => [`${x.message}${citation(x)}${x.curl ? `\n  $ ${x.curl}` : ""}`, ...stepLines(x.steps, "  ")].join("\n")).join("\n");
        lines.push(`      <failure message="${xml(row.failures[0]?.message ?? "failed")}" type="conformance">${xml(body)}</failure>`);
      } else if (row.verdict === "n/a") {
        lines.push(`      <skipped message="${xml(row.reason ?? "not applicable")}"/>`);
      }
      const out = [...row.notes, ...(row.verdict === "pass" && row.reason ? [row.reason] : [])];
      if (out.length > 0) lines.push(`      <system-out>${xml(out.join("\n"))}</system-out>`);
      lines.push("    </testcase>");
    }
    lines.push("  </testsuite>");
  }
  if (report.prism) {
    lines.push(`  <testsuite name="prism proxy" tests="1" failures="${prismFailures.length > 0 ? 1 : 0}" errors="0" skipped="0">`);
    lines.push(`    <testcase classname="conformance.prism" name="prism proxy reports no response violation" time="0">`);
    if (prismFailures.length > 0) {
      lines.push(`      <failure message="${xml(`${prismFailures.length} response violation(s)`)}" type="prism">${xml(prismFailures.map((p) => `${p.request}: ${p.location.join(".")} ${p.message}`).join("\n"))}</failure>`);
    }
    const requests = report.prism.findings.filter((p) => p.location[0] !== "response");
    if (requests.length > 0) lines.push(`      <system-out>${xml(requests.map((p) => `${p.deliberate ? "(on purpose) " : ""}${p.request}: ${p.location.join(".")} ${p.message}`).join("\n"))}</system-out>`);
    lines.push("    </testcase>");
    lines.push("  </testsuite>");
  }
  const rules = report.coverage.rules;
  const floorCase = rules.floor !== undefined ? 1 : 0;
  lines.push(`  <testsuite name="conformance: coverage" tests="${floorCase}" failures="${rules.met ? 0 : 1}" errors="0" skipped="0">`);
  lines.push("    <properties>");
  lines.push(`      <property name="rules_exercised" value="${rules.exercised}"/>`);
  lines.push(`      <property name="rules_total" value="${rules.total}"/>`);
  lines.push(`      <property name="rules_exercised_percent" value="${rules.percent.toFixed(1)}"/>`);
  if (rules.floor !== undefined) lines.push(`      <property name="min_coverage_percent" value="${rules.floor}"/>`);
  lines.push(`      <property name="statuses_declared" value="${report.coverage.statuses.declared}"/>`);
  lines.push(`      <property name="statuses_seen" value="${report.coverage.statuses.observed}"/>`);
  lines.push("    </properties>");
  if (rules.floor !== undefined) {
    lines.push(`    <testcase classname="conformance.coverage" name="${xml(`at least ${rules.floor}% of the rules exercised`)}" time="0">`);
    const shortfall = floorShortfall(rules);
    if (shortfall) lines.push(`      <failure message="${xml(shortfall)}" type="coverage">${xml(shortfall)}</failure>`);
    lines.push(`      <system-out>${xml(ruleCoverageText(rules))}</system-out>`);
    lines.push("    </testcase>");
  }
  lines.push("  </testsuite>");
  if (report.errors.length > 0) {
    lines.push(`  <testsuite name="conformance: checks" tests="${report.errors.length}" failures="0" errors="${report.errors.length}" skipped="0">`);
    for (const e of report.errors) lines.push(`    <testcase classname="conformance.checks" name="${xml(e.check)}" time="0"><error message="${xml(e.message)}"/></testcase>`);
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>");
  return lines.join("\n") + "\n";
}
