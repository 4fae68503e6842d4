// What a generated run (`--generate`) sent and found, per operation: plain data, read by
// the run, the report and the context without importing one another.

export interface OperationRun {
  operationId: string;
  cases: number;
  valid: number;
  invalid: number;
  /** Distinct findings (each shrunk and reported once). */
  findings: number;
  /** Answers that showed a finding, repeats included. */
  failingCases: number;
  requests: number;
}

/** One stateful sequence of a generated run (links walked, objects deleted, other credentials). */
export interface SequenceRun {
  name: string;
  requests: number;
  /** Failures it recorded. */
  findings: number;
  /** Why it (or a part of it) did not run. */
  skipped?: string;
}

export interface GeneratedReport {
  seed: number;
  perOperation: number;
  operations: OperationRun[];
  /** Operations not generated in this run, and why. */
  skipped: { operationId: string; reason: string }[];
  /** The stateful sequences walked after the generated cases. */
  sequences: SequenceRun[];
}
