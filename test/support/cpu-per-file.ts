// Each test file's CPU, when TEST_CPU_LOG names a file (vitest.config.ts then loads this
// before every test file): a line per file, "file, CPU of its worker in ms, CPU of the
// processes it started and waited for in ms (/proc: Linux only), wall ms, start (ms since
// the epoch), worker pid", from its first hook to its last (the last two draw the run's
// timeline: which worker ran what when, and where one waited for the other). The suite is
// bound by CPU, so this, not the wall time of a file that shared the machine with another,
// says where the run's time goes.
import { appendFileSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { afterAll, beforeAll } from "vitest";

/** CPU ms of this process's waited-for children (utime + stime of /proc/self/stat's cutime and cstime, in clock ticks of 10 ms). */
function childrenCpuMs(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

let file = "";
let cpu = process.cpuUsage();
let children = 0;
let started = 0;

beforeAll(({}: object, suite: { file?: { filepath: string } }) => {
  file = relative(process.cwd(), suite.file?.filepath ?? "");
  cpu = process.cpuUsage();
  children = childrenCpuMs();
  started = Date.now();
});

afterAll(() => {
  const own = process.cpuUsage(cpu);
  appendFileSync(process.env.TEST_CPU_LOG!, `${file}\t${Math.round((own.user + own.system) / 1000)}\t${childrenCpuMs() - children}\t${Date.now() - started}\t${started}\t${process.pid}\n`);
});
