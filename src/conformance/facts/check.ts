// What a check is and what it is given. A check: a named run over the server, the seed
// rules it observes, and ONE declaration of what it needs (flags, keys, facts earlier checks
// learn) and what it provides (facts later checks use); the runner orders the checks from
// these declarations alone (run/plan.ts) and skips a check whose needs are not met, saying
// why. Its context: what the run was given (`settings`), the target, the results, what the
// answers showed so far (`seen`), the facts earlier checks learnt (typed, each read only by
// a check that declares it), and small helpers for the checks' recurring shapes (an
// expected refusal, a route the server does not offer).
import { statusOf } from "../../contract/index.ts";
import type { AnswersSeen } from "../judge/answer-checks/index.ts";
import type { Results } from "../judge/results.ts";
import { errorCodeOf, type Cited, type Exchange, type RequestSpec } from "../target/exchange.ts";
import type { Target } from "../target/target.ts";
import type { KeyRole, RunSettings } from "./given.ts";
import { FACTS, isGathered, type AnyFact, type FactName, type Gathered, type GatheredName, type Learnt } from "./learnt.ts";
import type { FactStore } from "./store.ts";

export interface Needs {
  /** It changes state (no credits): `--allow-writes`. */
  writes?: boolean;
  /** It submits generations that cost credits: `--allow-spend`. */
  spend?: boolean;
  /** A second account's key: `--other-api-key`. */
  other?: boolean;
  /** False when a static mock can meet the check (default true: needs a server that keeps state). */
  stateful?: boolean;
  /** Runs only with generated inputs (`--generate`); otherwise left out silently. */
  generate?: boolean;
  /**
   * Facts it cannot run without: it runs after the checks that provide them (which run
   * for it whatever `--only` selects), and is n/a without one, saying which and why.
   */
  facts?: readonly FactName[];
  /** Facts it uses when they are known: it runs after the checks that provide them, when those run. */
  uses?: readonly AnyFact[];
}

/**
 * When a check runs besides what its facts decide: `first`, before every other check (it
 * starts what the whole run's length covers, or stops a run that cannot go on); `last`,
 * after every other check but those below (it changes what the others rely on: the run's
 * objects, the account's generation slots); `after time passes`, after those (it lets
 * time pass, days of it on a clock the caller moves, and so ends what the others rely
 * on: tokens, signatures, remembered Idempotency-Keys, event history); `over the run`,
 * after every other check (it judges what the whole run saw).
 */
export type When = "first" | "last" | "after time passes" | "over the run";

export interface Check {
  name: string;
  /** The seed rules this check observes (for `--only` and for the reasons of a skip). */
  rules: readonly string[];
  needs?: Needs;
  /** Facts it learns (or says why it could not): `c.learn`, `c.add`, `c.cannotLearn`, `c.notLearnt`. */
  provides?: readonly AnyFact[];
  /**
   * Facts whose objects it may change or make go (a file moved into a folder that is then
   * deleted, a generation revoked): every other check that uses them runs before it.
   */
  alters?: readonly AnyFact[];
  when?: When;
  /** It runs whatever `--only` selects (who the key is: a refused key stops the run before anything else). */
  always?: true;
  run(c: CheckContext): Promise<void>;
}

export class CheckContext {
  /** The check that is running: what it declares is what it may read and learn. */
  #check: Check | undefined;
  readonly #counters = new Map<string, number>();

  constructor(
    /** What the run was given (`options`) and resolved from it (defaults, the seed, the flags' effects). */
    readonly settings: RunSettings,
    /** The server: every request goes through it. */
    readonly target: Target,
    readonly results: Results,
    /** What the answers of the run showed so far (windows, Russian wording, statuses). */
    readonly seen: AnswersSeen,
    /** What checks learnt so far (read through `fact`, `known`; written through `learn`, `add`, `cannotLearn`, `notLearnt`). */
    readonly facts: FactStore,
  ) {}

  /** The runner says which check runs now. */
  running(check: Check | undefined): void {
    this.#check = check;
  }

  #declared(name: AnyFact, as: "needs" | "reads" | "provides"): void {
    const c = this.#check;
    if (!c) return;
    const needs = c.needs?.facts ?? [];
    const uses = c.needs?.uses ?? [];
    const provides = c.provides ?? [];
    const ok = as === "needs" ? needs.includes(name as FactName) : as === "reads" ? needs.includes(name as FactName) || uses.includes(name) || provides.includes(name) : provides.includes(name);
    if (!ok) throw new Error(`the check "${c.name}" ${as === "provides" ? "learns" : "reads"} ${name} (${FACTS[name]}) without declaring it (${as === "provides" ? "provides" : as === "needs" ? "needs.facts" : "needs.facts or needs.uses"})`);
  }

  /** A fact the check needs (`needs.facts`): the runner ran it only with the fact known. */
  fact<K extends FactName>(name: K): Learnt[K] {
    this.#declared(name, "needs");
    const value = this.facts.value(name);
    if (value === undefined) throw new Error(`${FACTS[name]} is not known: ${this.facts.why(name)}`);
    return value;
  }

  /** A fact the check uses when it is known (`needs.uses`), or a gathered list (empty when nothing was added). */
  known<K extends GatheredName>(name: K): Gathered[K];
  known<K extends FactName>(name: K): Learnt[K] | undefined;
  known(name: AnyFact): unknown {
    this.#declared(name, "reads");
    return isGathered(name) ? this.facts.gathered(name) : this.facts.value(name);
  }

  /** Why a fact the check uses is not known (for its own reasons of a skip). */
  whyUnknown(name: FactName): string {
    return this.facts.why(name);
  }

  /** A fact the check provides, learnt. */
  learn<K extends FactName>(name: K, value: Learnt[K]): void {
    this.#declared(name, "provides");
    this.facts.learn(name, value);
  }

  /** Adds to a gathered fact the check provides. */
  add<K extends GatheredName>(name: K, ...items: Gathered[K]): void {
    this.#declared(name, "provides");
    this.facts.add(name, items);
  }

  /**
   * A fact the check provides could not be learnt because the server answered wrongly: a
   * failure of `rule`, saying what was not learnt and citing the answer; the checks that
   * need the fact say it is missing, and why.
   */
  cannotLearn(name: FactName, rule: string, message: string, ex?: { cite: Cited }): void {
    this.#declared(name, "provides");
    this.results.fail(rule, `${message}: ${FACTS[name]} could not be learnt`, ex?.cite);
    this.facts.missing(name, message);
  }

  /** A fact the check provides was not there to learn (no failure): `why` is what its dependents say. */
  notLearnt(name: FactName, why: string): void {
    this.#declared(name, "provides");
    this.facts.missing(name, why);
  }

  /** The next number of a series of the run (`oauth grant`: each grant's requests get a label of their own). */
  next(series: string): number {
    const n = (this.#counters.get(series) ?? 0) + 1;
    this.#counters.set(series, n);
    return n;
  }

  get apiKey(): string {
    return this.settings.options.apiKey;
  }

  get otherKey(): string | undefined {
    return this.settings.options.otherApiKey;
  }

  role(role: KeyRole): string | undefined {
    return this.settings.options.keys?.[role];
  }

  request(spec: RequestSpec): Promise<Exchange> {
    return this.target.request(spec);
  }

  get(path: string, rule: string, extra: Partial<RequestSpec> = {}): Promise<Exchange> {
    return this.target.request({ ...extra, method: "GET", path, rule });
  }

  post(path: string, json: unknown, rule: string, extra: Partial<RequestSpec> = {}): Promise<Exchange> {
    return this.target.request({ ...extra, method: "POST", path, json, rule });
  }

  /** The main account's balance in centi-credits (`credits.main_cc` of `GET /v1/me`). */
  async balance(rule: string): Promise<number | undefined> {
    const me = await this.get("/v1/me", rule);
    const v = me.json?.credits?.main_cc;
    return typeof v === "number" ? v : undefined;
  }

  /** Lets time pass on the target: moves its clock when the caller controls it, else sleeps. */
  wait(seconds: number): Promise<void> {
    return this.target.elapse(seconds);
  }

  /** Whether letting time pass moves the server's clock (the caller controls it: `control.advanceClock`) rather than sleeping. */
  get clockMoves(): boolean {
    return this.target.options.clockMoves;
  }

  /**
   * Lets `seconds` pass for `rules`, which only show over time (`what` is what passes: "the
   * 7 days of event history"): the server's clock moved when the caller controls it, else
   * a wait within what is left of --max-wait. False, with the rules `n/a` and the reason,
   * when the clock cannot be moved and the wait would pass --max-wait.
   */
  async passTime(seconds: number, rules: readonly string[], what: string): Promise<boolean> {
    const whole = Math.max(0, Math.ceil(seconds));
    return this.timeAllows(whole, rules, what) && this.target.letPass(whole, `for ${what}`);
  }

  /**
   * Whether `seconds` can pass for `rules` (see `passTime`), asked before a check makes
   * what it would wait on; false with the rules `n/a` and the reason. `realTime`: the time
   * is the server's own timer, which a clock move does not hasten (the heartbeat).
   */
  timeAllows(seconds: number, rules: readonly string[], what: string, realTime = false): boolean {
    const whole = Math.max(0, Math.ceil(seconds));
    if (realTime ? this.target.canWait(whole) : this.target.canLetPass(whole)) return true;
    const left = Math.max(0, this.settings.maxWaitSeconds - this.target.waitedSeconds);
    const why = realTime ? "it runs on real time, which no clock move hastens" : "the server's clock cannot be moved (a simulator's control interface moves it)";
    this.skip(rules, `${what} takes ${whole} s, more than is left of --max-wait (${left} s of ${this.settings.maxWaitSeconds} s), and ${why}`);
    return false;
  }

  /**
   * The server's time now (ms since the epoch): its clock's, when the caller controls it;
   * else the `Date` header of `answer` (a second's precision), the server's own clock.
   */
  async serverTime(answer: Exchange): Promise<number | undefined> {
    const control = this.settings.options.control;
    if (control?.advanceClock) return control.advanceClock(0);
    const date = Date.parse(answer.headers.get("date") ?? "");
    return Number.isNaN(date) ? undefined : date;
  }

  /**
   * The answer is the refusal `code` with the status of the error-code table; records
   * pass or fail on `rule`. `what` says what was asked.
   */
  refusal(ex: Exchange, code: string, rule: string, what: string): boolean {
    const got = errorCodeOf(ex.json);
    const ok = ex.status === statusOf(code) && got === code;
    return this.results.expect(ok, rule, `${what}: expected ${statusOf(code)} ${code}, got ${ex.status}${got ? ` ${got}` : ""}`, ex.cite);
  }

  /**
   * The server does not offer this route now (503 `service_unavailable`): the rules are
   * not applicable in this run. Says whether that is the case.
   */
  unavailable(ex: Exchange, rules: readonly string[]): boolean {
    if (ex.status !== 503 || errorCodeOf(ex.json) !== "service_unavailable") return false;
    for (const rule of rules) this.results.skip(rule, `${ex.method} ${ex.path.split("?")[0]} answered 503 service_unavailable (not offered by this server now)`);
    return true;
  }

  skip(rules: readonly string[], reason: string): void {
    for (const rule of rules) this.results.skip(rule, reason);
  }

  fail(rule: string, message: string, ex?: { cite: Cited }): void {
    this.results.fail(rule, message, ex?.cite);
  }

  pass(rule: string, note?: string): void {
    this.results.pass(rule, note);
  }

  expect(ok: boolean, rule: string, message: string, ex?: { cite: Cited }): boolean {
    return this.results.expect(ok, rule, message, ex?.cite);
  }

  note(rule: string, text: string): void {
    this.results.note(rule, text);
  }

  log(line: string): void {
    this.settings.options.log?.(line);
  }
}
