// Running a property's broken double narrowly (the double's rules and what their checks
// need, no heartbeat wait), for the tests of the properties over every route.
import type { ConformanceOptions, Report } from "../../../src/conformance/index.ts";
import { DOUBLES, type Double } from "./doubles.ts";
import { startProxy, type ProxiedRequest, type Rewrite } from "./proxy.ts";
import { runFull, startSim } from "./run.ts";

export function routeDouble(rule: string, title: RegExp): Double {
  const found = DOUBLES.filter((d) => d.rule === rule && title.test(d.title));
  if (found.length !== 1) throw new Error(`${found.length} doubles of ${rule} match ${title}`);
  return found[0]!;
}

/** Runs the suite through `rewrite` (a double's, or none) with only `rules`; `seen` gets every request the server received. */
export async function narrow(make: Double["make"] | undefined, rules: string[], extra: Partial<ConformanceOptions> = {}, seen?: ProxiedRequest[]): Promise<Report> {
  const sim = await startSim();
  const inner: Rewrite = make ? make(sim) : {};
  const rewrite: Rewrite = seen
    ? {
        ...inner,
        request(req) {
          seen.push(req);
          return inner.request ? inner.request(req) : req;
        },
      }
    : inner;
  const proxy = await startProxy(sim.url, rewrite);
  try {
    return await runFull(sim, proxy.url, { quick: true, only: rules, ...extra });
  } finally {
    await proxy.close();
    await sim.close();
  }
}

/** Runs a double narrowed to its rules (and those its checks need). */
export function against(d: Double, extra: Partial<ConformanceOptions> = {}): Promise<Report> {
  return narrow(d.make, [d.rule, ...(d.also ?? []), ...(d.with ?? [])], extra);
}

export function messages(report: Report, rule: string): string[] {
  return report.rows.find((r) => r.id === rule)!.failures.map((f) => f.message);
}
