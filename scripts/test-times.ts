// The slowest test files of a vitest run, from its JSON reporter's output:
//   npx vitest run --reporter=default --reporter=json --outputFile.json=/tmp/vitest.json
//   npx tsx scripts/test-times.ts /tmp/vitest.json [count]
// Prints each file's wall time (its first test's start to its last test's end, set-up
// included, as vitest reports it), its tests, and the totals: what to look at first when
// the suite grows slow (a file over 30 s says why in its header).
import { readFileSync } from "node:fs";
import { relative } from "node:path";

interface FileResult {
  name: string;
  startTime: number;
  endTime: number;
  status: string;
  assertionResults: { status: string }[];
}

const [file, count = "10"] = process.argv.slice(2);
if (!file) {
  console.error("usage: tsx scripts/test-times.ts <vitest JSON report> [count]");
  process.exit(2);
}
const report = JSON.parse(readFileSync(file, "utf8")) as { numTotalTests: number; numPassedTests: number; numFailedTests: number; testResults: FileResult[] };
const files = report.testResults.map((r) => ({ name: relative(process.cwd(), r.name), seconds: (r.endTime - r.startTime) / 1000, tests: r.assertionResults.length, status: r.status }));
files.sort((a, b) => b.seconds - a.seconds);
const sum = files.reduce((n, f) => n + f.seconds, 0);
console.log(`${files.length} files, ${report.numTotalTests} tests (${report.numPassedTests} passed, ${report.numFailedTests} failed); sum of file durations ${sum.toFixed(1)} s`);
console.log("| File | Seconds | Tests |");
console.log("|---|---:|---:|");
for (const f of files.slice(0, Number(count))) console.log(`| ${f.name}${f.status === "passed" ? "" : ` (${f.status})`} | ${f.seconds.toFixed(1)} | ${f.tests} |`);
