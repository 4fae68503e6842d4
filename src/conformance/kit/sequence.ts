// One stateful sequence: the requests it sent in order (the object created, the links
// followed, the delete), so that a finding carries the steps that led to it with their
// curl lines, and the seed that walks it again.
import { matchOperation } from "../../contract/index.ts";
import type { SequenceRun } from "../facts/generated.ts";
import type { Answered } from "./links.ts";
import type { Cited, Exchange, RequestSpec } from "../target/exchange.ts";
import { type CheckContext } from "../facts/check.ts";

export class Sequence {
  /** Each request of the sequence by what it cites (its record keeps a bounded prefix; the answer itself is released). */
  readonly steps: { step: string; cite: Cited }[] = [];
  readonly run: SequenceRun;
  readonly #before: number;

  /**
   * `replay`: the command-line flags that walk it again (`--generate=N --seed S
   * --operations ...`; none for a sequence of the default run, which every run walks
   * alike); `run`: the report entry it adds to (a branch's parent's).
   */
  constructor(
    readonly c: CheckContext,
    name: string,
    readonly replay: string | undefined,
    run?: SequenceRun,
  ) {
    this.run = run ?? { name, requests: 0, findings: 0 };
    this.#before = c.target.requestCount;
  }

  /** A sequence of its own steps and replay (one route of a sweep), counted in this one's report entry. */
  branch(replay: string): Sequence {
    return new Sequence(this.c, this.run.name, replay, this.run);
  }

  /** Sends a request of the sequence (a step of every finding that follows). */
  async send(step: string, spec: RequestSpec): Promise<Exchange> {
    const ex = await this.c.request(spec);
    this.steps.push({ step, cite: ex.cite });
    return ex;
  }

  /** Records an exchange made elsewhere (a stream opened) as a step. */
  record(step: string, ex: Exchange): void {
    this.steps.push({ step, cite: ex.cite });
  }

  /** A finding at `ex`, with the steps of the sequence before it. */
  fail(rule: string, message: string, ex: Exchange): void {
    const i = this.steps.findIndex((s) => s.cite === ex.cite);
    const steps = (i >= 0 ? this.steps.slice(0, i) : this.steps).map((s) => ({ step: s.step, cited: s.cite }));
    this.c.results.fail(rule, `${this.run.name}: ${message}${this.replay ? ` (replay: ${this.replay})` : ""}`, { ...ex.cite, steps });
    this.run.findings++;
  }

  expect(ok: boolean, rule: string, message: string, ex: Exchange): boolean {
    if (ok) this.c.pass(rule);
    else this.fail(rule, message, ex);
    return ok;
  }

  /** Why (part of) the sequence did not run: noted on the rules and in the report. */
  skip(rules: readonly string[], reason: string): void {
    this.c.skip(rules, `${this.run.name}: ${reason}`);
    this.run.skipped = this.run.skipped ? `${this.run.skipped}; ${reason}` : reason;
  }

  note(rule: string, text: string): void {
    this.c.note(rule, `${this.run.name}: ${text}`);
  }

  /** Closes the tally of requests. */
  done(): SequenceRun {
    this.run.requests = this.c.target.requestCount - this.#before;
    return this.run;
  }
}

/** An exchange as a link evaluates it: the answer and the request it answered. */
export function answered(ex: Exchange): Answered {
  const sent = ex.record.sent;
  let body: unknown;
  if (typeof sent.body === "string") {
    try {
      body = JSON.parse(sent.body);
    } catch {
      body = undefined;
    }
  }
  return {
    method: ex.method,
    url: sent.url,
    status: ex.status,
    headers: ex.headers,
    body: ex.json,
    request: { path: matchOperation(ex.method, ex.path.split("?")[0]!)?.params ?? {}, headers: sent.headers, ...(body !== undefined ? { body } : {}) },
  };
}
