// The conformance suite as a library: run it against a server, render its report.
export { runConformance, exitCode, CHECKS, type Report } from "./runner.ts";
export { renderTable, renderJson, renderJunit } from "./report.ts";
export { renderHar } from "./har.ts";
export type { Coverage, RuleCoverage, StatusCoverage, OperationStatuses } from "./coverage.ts";
export type { MaskedExchange } from "./exchange-record.ts";
export { KEY_ROLES, SUITE_REDIRECT_URI, type ConformanceOptions, type KeyRole } from "./options.ts";
export { startPrism, type RunningPrism } from "./prism.ts";
export { simulatorControl, type ServerControl } from "./server-control.ts";
export type { RuleRow, Verdict, Failure } from "./results.ts";
export type { PrismFinding } from "./http.ts";
export { UNCHECKED } from "./unchecked.ts";
