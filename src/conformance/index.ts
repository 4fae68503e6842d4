// The conformance suite as a library: run it against a server, render its report.
export { runConformance, exitCode, type Report } from "./run/runner.ts";
export { CHECKS } from "./checks/index.ts";
export { renderTable, renderJson, renderJunit } from "./run/render.ts";
export { renderHar } from "./run/har.ts";
export type { Coverage, RuleCoverage, StatusCoverage, OperationStatuses } from "./run/coverage.ts";
export type { MaskedExchange } from "./target/record.ts";
export { KEY_ROLES, SUITE_REDIRECT_URI, type ConformanceOptions, type KeyRole } from "./facts/given.ts";
export { startPrism, type RunningPrism } from "./run/prism.ts";
export { simulatorControl, type ServerControl } from "./target/control.ts";
export type { RuleRow, Verdict, Failure } from "./judge/results.ts";
export type { PrismFinding } from "./judge/prism.ts";
export { UNCHECKED } from "./judge/unchecked.ts";
export { startConformanceProxy, judgeHar, type ConformanceProxy, type ConformanceProxyOptions, type PassiveOptions } from "./run/passive/judge.ts";
export type { PassiveSummary } from "./run/passive/summary.ts";
