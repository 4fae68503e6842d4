// Loops that assert, and whether each is shown to run: the house rule "a test that checks
// items in a loop first asserts the collection is not empty" (docs/contributing.md, "A loop
// that checks items shows it runs"), read from the test files' syntax with the TypeScript
// compiler API. Used by test/test-hygiene.test.ts.
//
// A test is the callback of a call to `it` or `test` (`it.each(t)(...)`, `it.for`,
// `it.skip`, `test.concurrent`, ... alike), wherever it is called: a test file, a helper
// under test/**/support that registers tests, a describe-level loop that makes tests.
//
// A check loop is a loop of a test that runs an assertion: `for`, `for...of` (`for await`
// too), `for...in`, `while`, `do`, or a callback given to `forEach`, `map`, `flatMap`,
// `every`, `some`, `filter`, `find`, `findIndex`, `findLast`, `findLastIndex`, `reduce`,
// `reduceRight`. An assertion is a call of `expect(...)`, `expect.soft`, `expect.poll`,
// `assert(...)`, `assert.x(...)`, a function named `expectX`/`assertX`, or a function of the
// same file whose body asserts (`const check = (r) => expect(...)`; a `walk` that recurses).
// The matchers' own helpers (`expect.any`, `expect.objectContaining`, ...) are not.
//
// A check loop is shown to run when one of these holds:
// - literal: its collection has items by construction: an array or object literal with an
//   item (`["a", "b"]`, `{ a: 1 }`), `new Set`/`new Map` of one, a `const` bound to one (the
//   one in scope where the loop is), anything of the same length made from one
//   (`Object.entries(...)`, `.map(...)`, `.entries()`, `[...x]`, `Array.from(x)`); a
//   counted `for (let i = a; i < b; ...)` (or `<=`, `>`, `>=`) whose literal bounds let it
//   run; a `do ... while`.
// - asserted: earlier in the same test, an assertion says the collection has items:
//   `expect(x.length).toBeGreaterThan(0)` (or `>= 1`, `.toBe(n)` with n >= 1, `.not.toBe(0)`,
//   `.toBeTruthy()`; `x.size` and a locator's `x.count()` alike; a bound such as
//   `y.length + 1` is at least 1), `expect(x).not.toHaveLength(0)`, `.toHaveLength(n >= 1)`,
//   `.not.toEqual([])` / `.not.toEqual({})`, `.toEqual(...)`/`.toStrictEqual(...)`/
//   `.toMatchObject(...)` with a literal that has an item or with something already shown
//   to have items (either side), `.toContain(...)`, `.toContainEqual(...)`,
//   `.toHaveProperty(...)`, `expect(x.length > 0).toBe(true)`, `expect(x.some(f)).toBe(true)`.
//   The collection and what the assertion names are matched by their text once what keeps
//   the items is taken off both: `Object.keys(x)`, `x.map(f)`, `[...x]`, `await x`, `x as T`
//   and a `const` name stand for `x` (or its initializer); a loop over `x ?? []` for `x`. An
//   assertion on a part stands for the whole: `expect(x.filter(f)).not.toHaveLength(0)` and
//   `expect(x.some(f)).toBe(true)` show `x` has items.
// - tallied: later in the same test, such an assertion holds of something the loop fills
//   (`found.push(...)`, `.add`, `.set`, `.unshift`, `n++`, `n += 1`, `x[k] = ...`, in its
//   body after anything that passes over an item, or in a function of the file it calls
//   there): `expect(found.length).toBeGreaterThan(0)`, `expect(n).toBeGreaterThan(0)`. That
//   shows the loop reached its assertions. A tally in an inner loop shows the loops around
//   it ran too. Two literals (`[]`, `new Set()`) are never taken for the same collection.
//
// A loop that can pass over an item before its first assertion (a `continue` of its own; a
// bare `return` in its callback) may check none of a collection that has items: it needs a
// tally, or an earlier assertion on a part of the collection (`x.filter(f)`, `x.some(f)`)
// that says an item to check exists; by construction is not enough. A `while` loop has no
// collection: it needs a tally.
//
// A loop inside another check loop needs none of this when the outer loop asserts something
// of its own, outside its inner loops: the outer items are then checked even where an inner
// collection is empty. A loop in a named function of the test (`const walk = (n) => {...}`)
// runs when called: a loop that calls it is held to the rule, a call outside a loop is not.
//
// What this does not see: an assertion under an `if` is taken to run, and one made under a
// condition before the loop counts (the condition then says when the collection may be
// empty: `if (!typeNotShown) expect(required).not.toHaveLength(0)`); functions of other
// modules that assert under other names; loops in functions outside a test; assertions that
// pass on an empty collection without a loop (`expect(x.every(f)).toBe(true)`,
// `expect(x.filter(f)).toEqual([])`); the tables of `it.each` (an empty table makes no test).
import ts from "typescript";

export interface UnprovenLoop {
  file: string;
  /** 1-based line of the loop. */
  line: number;
  /** The test's title as written. */
  test: string;
  /** The loop's collection as written, or what its condition tests. */
  collection: string;
  /** The loop skips items before it asserts. */
  skips: boolean;
}

/** Methods whose callback runs once per item of their receiver. */
const LOOP_METHODS = new Set(["forEach", "map", "flatMap", "every", "some", "filter", "find", "findIndex", "findLast", "findLastIndex", "reduce", "reduceRight"]);
/** Methods whose result has as many items as their receiver. */
const SAME_LENGTH_METHODS = new Set(["map", "sort", "toSorted", "reverse", "toReversed", "entries", "keys", "values", "all"]);
/** Methods whose result, when it has items (or is true), shows their receiver has some. */
const NARROWING_METHODS = new Set(["filter", "slice", "flatMap", "flat", "find", "findLast", "some", "at", "includes", "has", "get"]);
/** Functions whose result has as many items as their first argument. */
const SAME_LENGTH_FUNCTIONS = new Set(["Object.keys", "Object.values", "Object.entries", "Array.from", "structuredClone", "Promise.all", "Promise.allSettled"]);
/** Methods that put an item into their receiver. */
const FILLING_METHODS = new Set(["push", "unshift", "add", "set"]);
const EQUALITY = new Set(["toBe", "toEqual", "toStrictEqual"]);

type Callback = ts.ArrowFunction | ts.FunctionExpression;
type Named = Callback | ts.FunctionDeclaration;

interface Loop {
  node: ts.Node;
  /** What it iterates, when it iterates something. */
  collection: ts.Expression | undefined;
  body: ts.Node;
  /** Runs at least once by construction (literal bounds, do-while). */
  runs: boolean;
}

/** One way an expression relates to a collection: the same items, or a part of them. */
interface Relative {
  /** Its text, by which collections are matched; none for a literal (`[]` is not one collection). */
  key: string | undefined;
  narrowed: boolean;
  expression: ts.Expression;
}

/** `e` without what changes nothing of its items: parentheses, `!`, `as`, `satisfies`, `await`. */
function unwrap(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isTypeAssertionExpression(e) || ts.isAwaitExpression(e)) e = e.expression;
  return e;
}

function isCallback(n: ts.Node): n is Callback {
  return ts.isArrowFunction(n) || ts.isFunctionExpression(n);
}

function keyOf(e: ts.Expression): string {
  return unwrap(e).getText().replace(/\s+/g, "");
}

/** A value written out (`[]`, `{ a: 1 }`, `new Set()`): two of them are not the same collection. */
function isLiteral(e: ts.Expression): boolean {
  if (ts.isArrayLiteralExpression(e)) return !(e.elements.length === 1 && ts.isSpreadElement(e.elements[0]!));
  if (ts.isNewExpression(e)) return (e.arguments ?? []).every((a) => isLiteral(unwrap(a)));
  return ts.isObjectLiteralExpression(e) || ts.isStringLiteralLike(e) || ts.isNumericLiteral(e);
}

function contains(n: ts.Node, test: (m: ts.Node) => boolean, enter: (m: ts.Node) => boolean = () => true): boolean {
  let found = false;
  const visit = (m: ts.Node) => {
    if (found) return;
    if (test(m)) found = true;
    else if (enter(m)) ts.forEachChild(m, visit);
  };
  ts.forEachChild(n, visit);
  return found;
}

/** The test a call registers: `it("...", fn)`, `it.each(t)("...", fn)`, `test.skip(...)`. */
function testOf(call: ts.CallExpression): { title: string; body: Callback } | undefined {
  let e: ts.Expression = call.expression;
  while (ts.isPropertyAccessExpression(e) || ts.isCallExpression(e)) e = e.expression;
  if (!ts.isIdentifier(e) || (e.text !== "it" && e.text !== "test")) return undefined;
  const body = [...call.arguments].reverse().find(isCallback);
  if (!body) return undefined;
  const first = call.arguments[0];
  const title = first && (ts.isStringLiteralLike(first) || ts.isTemplateExpression(first)) ? first.getText().slice(1, -1) : (first?.getText() ?? "");
  return { title, body };
}

/** Whether a binding (`x`, `[x, y]`, `{ x }`) declares the name. */
function binds(name: ts.BindingName, text: string): boolean {
  if (ts.isIdentifier(name)) return name.text === text;
  return name.elements.some((el) => !ts.isOmittedExpression(el) && binds(el.name, text));
}

/** A named function: a function declaration, or a const bound to a function. */
function isNamedFunction(n: ts.Node): n is Named {
  if (ts.isFunctionDeclaration(n)) return true;
  return isCallback(n) && ts.isVariableDeclaration(n.parent) && n.parent.initializer === n;
}

class TestFile {
  readonly source: ts.SourceFile;
  /** Named functions of the file, by name. */
  private readonly functions = new Map<string, Named[]>();
  /** Names of the file's functions that assert, directly or through each other. */
  private readonly asserting = new Set<string>();

  constructor(readonly file: string, text: string) {
    this.source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const visit = (n: ts.Node) => {
      if (ts.isFunctionDeclaration(n) && n.name) this.addFunction(n.name.text, n);
      if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer && isCallback(unwrap(n.initializer))) this.addFunction(n.name.text, unwrap(n.initializer) as Callback);
      ts.forEachChild(n, visit);
    };
    visit(this.source);
    for (let grew = true; grew; ) {
      grew = false;
      for (const [name, fns] of this.functions) {
        if (this.asserting.has(name) || !fns.some((f) => f.body && contains(f.body, (m) => this.isAssertion(m)))) continue;
        this.asserting.add(name);
        grew = true;
      }
    }
  }

  private addFunction(name: string, fn: Named) {
    this.functions.set(name, [...(this.functions.get(name) ?? []), fn]);
  }

  isAssertion(n: ts.Node): boolean {
    if (!ts.isCallExpression(n)) return false;
    const callee = unwrap(n.expression);
    if (ts.isIdentifier(callee)) return /^(expect|assert)([A-Z]\w*)?$/.test(callee.text) || this.asserting.has(callee.text);
    if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression)) {
      const [object, name] = [callee.expression.text, callee.name.text];
      return object === "assert" || (object === "expect" && (name === "soft" || name === "poll"));
    }
    return false;
  }

  /** Whether `n` runs an assertion (not counting named functions it only defines). */
  asserts(n: ts.Node): boolean {
    return contains(n, (m) => this.isAssertion(m), (m) => !isNamedFunction(m));
  }

  /** The initializer of the `const` a name refers to, in scope at its use. */
  constOf(e: ts.Expression): ts.Expression | undefined {
    if (!ts.isIdentifier(e)) return undefined;
    for (let scope: ts.Node | undefined = e.parent; scope; scope = scope.parent) {
      if (ts.isFunctionLike(scope) && scope.parameters.some((p) => binds(p.name, e.text))) return undefined;
      if ((ts.isForOfStatement(scope) || ts.isForInStatement(scope) || ts.isForStatement(scope)) && scope.initializer && ts.isVariableDeclarationList(scope.initializer) && scope.initializer.declarations.some((d) => binds(d.name, e.text))) return undefined;
      if (ts.isCatchClause(scope) && scope.variableDeclaration && binds(scope.variableDeclaration.name, e.text)) return undefined;
      const statements = ts.isBlock(scope) || ts.isSourceFile(scope) || ts.isModuleBlock(scope) || ts.isCaseClause(scope) || ts.isDefaultClause(scope) ? scope.statements : undefined;
      for (const s of statements ?? []) {
        if (!ts.isVariableStatement(s)) continue;
        for (const d of s.declarationList.declarations) {
          if (!binds(d.name, e.text)) continue;
          if (!ts.isIdentifier(d.name)) return undefined;
          return s.declarationList.flags & ts.NodeFlags.Const && d.initializer ? unwrap(d.initializer) : undefined;
        }
      }
    }
    return undefined;
  }

  number(e: ts.Expression | undefined): number | undefined {
    if (!e) return undefined;
    e = unwrap(e);
    if (ts.isNumericLiteral(e)) return Number(e.text.replace(/_/g, ""));
    if (ts.isPrefixUnaryExpression(e) && e.operator === ts.SyntaxKind.MinusToken) {
      const n = this.number(e.operand);
      return n === undefined ? undefined : -n;
    }
    const bound = this.constOf(e);
    return bound ? this.number(bound) : undefined;
  }

  /** Has an item by construction. */
  hasItems(e: ts.Expression, depth = 0): boolean {
    if (depth > 20) return false;
    e = unwrap(e);
    if (ts.isArrayLiteralExpression(e)) return e.elements.some((x) => !ts.isSpreadElement(x) || this.hasItems(x.expression, depth + 1));
    if (ts.isObjectLiteralExpression(e)) return e.properties.some((p) => !ts.isSpreadAssignment(p) || this.hasItems(p.expression, depth + 1));
    if (ts.isStringLiteralLike(e)) return e.text.length > 0;
    return this.relatives(e, "iterated").slice(1).some((r) => this.hasItems(r.expression, depth + 1));
  }

  /**
   * `e` and the expressions its items tie it to, by their text. `"iterated"` (a loop's
   * collection): each has items only if `e` has (`Object.keys(x)`, `x.map(f)`, `[...x]`,
   * `x ?? []` lead to `x`; a `const` to its initializer). `"asserted"` (what an assertion
   * shows to have items): each has items if `e` has; the steps from a part to the whole
   * (`x.filter(f)`, `x.some(f)`, `x.slice(1)`, ... lead to `x`) mark what follows `narrowed`.
   * A loop is shown to run when the two meet.
   */
  relatives(e: ts.Expression, as: "iterated" | "asserted"): Relative[] {
    const out: Relative[] = [];
    let narrowed = false;
    for (let x: ts.Expression | undefined = unwrap(e); x && out.length < 20; ) {
      out.push({ key: isLiteral(x) ? undefined : keyOf(x), narrowed, expression: x });
      let next: ts.Expression | undefined;
      if (ts.isCallExpression(x)) {
        const callee = unwrap(x.expression);
        if (SAME_LENGTH_FUNCTIONS.has(callee.getText().replace(/\s+/g, "")) && x.arguments[0]) next = x.arguments[0];
        else if (ts.isPropertyAccessExpression(callee) && SAME_LENGTH_METHODS.has(callee.name.text)) next = callee.expression;
        else if (as === "asserted" && ts.isPropertyAccessExpression(callee) && NARROWING_METHODS.has(callee.name.text)) {
          next = callee.expression;
          narrowed = true;
        }
      } else if (as === "iterated" && ts.isBinaryExpression(x) && [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(x.operatorToken.kind)) next = x.left;
      else if (ts.isArrayLiteralExpression(x) && x.elements.length === 1 && ts.isSpreadElement(x.elements[0]!)) next = x.elements[0]!.expression;
      else if (ts.isNewExpression(x) && ts.isIdentifier(x.expression) && ["Set", "Map"].includes(x.expression.text) && x.arguments?.length === 1) next = x.arguments[0];
      else next = this.constOf(x);
      x = next && unwrap(next);
    }
    return out;
  }

  loopOf(n: ts.Node): Loop | undefined {
    if (ts.isForOfStatement(n) || ts.isForInStatement(n)) return { node: n, collection: n.expression, body: n.statement, runs: false };
    if (ts.isForStatement(n)) return { node: n, ...this.countedLoop(n), body: n.statement };
    if (ts.isDoStatement(n)) return { node: n, collection: undefined, body: n.statement, runs: true };
    if (ts.isWhileStatement(n)) return { node: n, collection: n.expression, body: n.statement, runs: false };
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && LOOP_METHODS.has(n.expression.name.text)) {
      const callback = n.arguments.find(isCallback);
      if (callback) return { node: n, collection: n.expression.expression, body: callback, runs: false };
    }
    return undefined;
  }

  /** `for (let i = a; i < b; ...)`: runs when literal bounds say so; else over `b` (`x.length` is `x`). */
  private countedLoop(n: ts.ForStatement): { collection: ts.Expression | undefined; runs: boolean } {
    const condition = n.condition && unwrap(n.condition);
    if (!condition || !ts.isBinaryExpression(condition)) return { collection: condition, runs: false };
    const start = n.initializer && ts.isVariableDeclarationList(n.initializer) ? this.number(n.initializer.declarations[0]?.initializer) : undefined;
    const end = this.number(condition.right);
    const compare: Partial<Record<ts.SyntaxKind, (a: number, b: number) => boolean>> = {
      [ts.SyntaxKind.LessThanToken]: (a, b) => a < b,
      [ts.SyntaxKind.LessThanEqualsToken]: (a, b) => a <= b,
      [ts.SyntaxKind.GreaterThanToken]: (a, b) => a > b,
      [ts.SyntaxKind.GreaterThanEqualsToken]: (a, b) => a >= b,
    };
    const test = compare[condition.operatorToken.kind];
    const runs = start !== undefined && end !== undefined && !!test?.(start, end);
    const right = unwrap(condition.right);
    const collection = ts.isPropertyAccessExpression(right) && ["length", "size"].includes(right.name.text) ? right.expression : right;
    return { collection, runs };
  }

  /**
   * Where the last statement ends that lets the loop pass over an item before its first
   * assertion (`continue`; a bare `return` in a callback), if there is one.
   */
  skipEnd(loop: Loop): number | undefined {
    let first = Infinity;
    const findFirst = (m: ts.Node) => {
      if (m.getStart() >= first || isNamedFunction(m)) return;
      if (this.isAssertion(m)) first = m.getStart();
      else ts.forEachChild(m, findFirst);
    };
    ts.forEachChild(loop.body, findFirst);
    const label = ts.isLabeledStatement(loop.node.parent) ? loop.node.parent.label.text : undefined;
    const skip = (m: ts.Node) =>
      m.getStart() < first &&
      (isCallback(loop.body) ? ts.isReturnStatement(m) && !m.expression : ts.isContinueStatement(m) && (!m.label || m.label.text === label));
    // A `continue` in a loop inside is that loop's, unless it names this one's label.
    const enter = (m: ts.Node) => !isCallback(m) && !ts.isFunctionDeclaration(m) && (!this.loopOf(m) || (!!label && !isCallback(loop.body)));
    let end: number | undefined;
    const visit = (m: ts.Node) => {
      if (skip(m)) end = Math.max(end ?? 0, m.getEnd());
      else if (enter(m)) ts.forEachChild(m, visit);
    };
    ts.forEachChild(loop.body, visit);
    return end;
  }

  /**
   * What `n` fills from `after` on: names pushed to, added to, counted up, there or in the
   * file's functions it calls.
   */
  filledBy(n: ts.Node, after = 0, seen = new Set<ts.Node>()): Set<string> {
    const names = new Set<string>();
    const visit = (m: ts.Node) => {
      if (m.getEnd() <= after) return;
      if (m.getStart() < after) {
        ts.forEachChild(m, visit);
        return;
      }
      if (ts.isCallExpression(m)) {
        const callee = unwrap(m.expression);
        if (ts.isPropertyAccessExpression(callee) && FILLING_METHODS.has(callee.name.text)) names.add(keyOf(callee.expression));
        if (ts.isIdentifier(callee)) {
          for (const fn of this.functions.get(callee.text) ?? []) {
            if (seen.has(fn) || !fn.body) continue;
            seen.add(fn);
            for (const name of this.filledBy(fn.body, 0, seen)) names.add(name);
          }
        }
      }
      if ((ts.isPostfixUnaryExpression(m) || ts.isPrefixUnaryExpression(m)) && m.operator === ts.SyntaxKind.PlusPlusToken) names.add(keyOf(m.operand));
      if (ts.isBinaryExpression(m) && m.operatorToken.kind === ts.SyntaxKind.PlusEqualsToken) names.add(keyOf(m.left));
      if (ts.isBinaryExpression(m) && m.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isElementAccessExpression(m.left)) names.add(keyOf(m.left.expression));
      ts.forEachChild(m, visit);
    };
    ts.forEachChild(n, visit);
    return names;
  }

  /** The collection a count is of: `x.length`, `x.size`, `x.count()` give `x`. */
  countOf(e: ts.Expression): ts.Expression | undefined {
    e = unwrap(e);
    if (ts.isPropertyAccessExpression(e) && ["length", "size"].includes(e.name.text)) return e.expression;
    if (ts.isCallExpression(e) && e.arguments.length === 0 && ts.isPropertyAccessExpression(e.expression) && e.expression.name.text === "count") return e.expression.expression;
    return undefined;
  }

  /** The least value a number can have: a literal, a count (0), a sum of them. */
  atLeast(e: ts.Expression | undefined): number | undefined {
    if (!e) return undefined;
    e = unwrap(e);
    if (this.countOf(e)) return 0;
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const [a, b] = [this.atLeast(e.left), this.atLeast(e.right)];
      return a === undefined || b === undefined ? undefined : a + b;
    }
    return this.number(e);
  }

  /**
   * What an assertion shows to have items: `expect(x).not.toHaveLength(0)` gives `x`,
   * `expect(n).toBeGreaterThan(0)` gives `n`. `known` says whether an expression is
   * already shown to have items (for `expect(x).toEqual(y)`).
   */
  shownToHaveItems(n: ts.Node, known: (e: ts.Expression) => boolean): ts.Expression[] {
    if (!ts.isCallExpression(n) || !ts.isPropertyAccessExpression(n.expression)) return [];
    const matcher = n.expression.name.text;
    let e = n.expression.expression;
    const negated = ts.isPropertyAccessExpression(e) && e.name.text === "not";
    if (ts.isPropertyAccessExpression(e) && negated) e = e.expression;
    if (!ts.isCallExpression(e) || !e.arguments[0] || !["expect", "expect.soft"].includes(e.expression.getText())) return [];
    const subject = unwrap(e.arguments[0]);
    const arg = n.arguments[0] && unwrap(n.arguments[0]);
    const least = this.atLeast(arg);
    const isTrue = !negated && ((EQUALITY.has(matcher) && arg?.kind === ts.SyntaxKind.TrueKeyword) || matcher === "toBeTruthy");
    // A number above zero: a count of a collection, or a tally.
    const above =
      (!negated && matcher === "toBeGreaterThan" && least !== undefined && least >= 0) ||
      (!negated && ["toBeGreaterThanOrEqual", ...EQUALITY].includes(matcher) && least !== undefined && least >= 1) ||
      (negated && EQUALITY.has(matcher) && this.number(arg) === 0);
    const counted = this.countOf(subject);
    if (counted) return above || isTrue || (negated && matcher === "toBeFalsy") ? [counted] : [];
    if (above) return [subject];
    if (isTrue && ts.isBinaryExpression(subject)) {
      const bound = this.atLeast(subject.right);
      const op = subject.operatorToken.kind;
      if (bound === undefined || !((op === ts.SyntaxKind.GreaterThanToken && bound >= 0) || (op === ts.SyntaxKind.GreaterThanEqualsToken && bound >= 1))) return [];
      return [this.countOf(subject.left) ?? unwrap(subject.left)];
    }
    // `x.some(f)`, `x.includes(y)`, `x.has(k)` being true: the relatives of the call lead to `x`.
    if (isTrue) return ts.isCallExpression(subject) ? [subject] : [];
    if (negated) {
      const empty = !!arg && ((ts.isArrayLiteralExpression(arg) && arg.elements.length === 0) || (ts.isObjectLiteralExpression(arg) && arg.properties.length === 0));
      return (matcher === "toHaveLength" && this.number(arg) === 0) || (["toEqual", "toStrictEqual"].includes(matcher) && empty) ? [subject] : [];
    }
    if (matcher === "toHaveLength") return least !== undefined && least >= 1 ? [subject] : [];
    if (["toEqual", "toStrictEqual", "toMatchObject"].includes(matcher) && arg) {
      if (this.hasItems(arg) || known(arg)) return [subject];
      return known(subject) ? [arg] : [];
    }
    if (["toContain", "toContainEqual", "toHaveProperty"].includes(matcher)) return [subject];
    return [];
  }
}

/** Every check loop of the file's tests that nothing shows to run. */
export function unprovenLoops(file: string, text: string): UnprovenLoop[] {
  const f = new TestFile(file, text);
  const found: UnprovenLoop[] = [];
  const visit = (n: ts.Node) => {
    const test = ts.isCallExpression(n) ? testOf(n) : undefined;
    if (test) found.push(...checkTest(f, test));
    else ts.forEachChild(n, visit);
  };
  visit(f.source);
  return found;
}

function keysOf(relatives: Relative[]): Set<string> {
  return new Set(relatives.flatMap((r) => (r.key ? [r.key] : [])));
}

function checkTest(f: TestFile, test: { title: string; body: Callback }): UnprovenLoop[] {
  // What the test asserts to have items, in order, each with where its assertion starts and ends.
  const shown: { start: number; end: number; relatives: Relative[] }[] = [];
  const known = (e: ts.Expression, before: number) => {
    const keys = keysOf(f.relatives(e, "iterated"));
    return shown.some((s) => s.end <= before && s.relatives.some((r) => r.key && keys.has(r.key)));
  };
  const collect = (m: ts.Node) => {
    for (const x of f.shownToHaveItems(m, (e) => known(e, m.getStart()))) shown.push({ start: m.getStart(), end: m.getEnd(), relatives: f.relatives(x, "asserted") });
    ts.forEachChild(m, collect);
  };
  collect(test.body);

  const proven = (loop: Loop): boolean => {
    const start = loop.node.getStart();
    const skipEnd = f.skipEnd(loop);
    const skips = skipEnd !== undefined;
    if (!skips && (loop.runs || (loop.collection && f.hasItems(loop.collection)))) return true;
    if (loop.collection) {
      const same = keysOf(f.relatives(loop.collection, "iterated"));
      if (shown.some((s) => s.end <= start && s.relatives.some((r) => r.key && same.has(r.key) && (r.narrowed || !skips)))) return true;
    }
    // What it fills after the last statement that passes over an item: a count of items it asserted on.
    const filled = f.filledBy(loop.body, skipEnd);
    return shown.some((s) => s.start >= loop.node.getEnd() && s.relatives.some((r) => r.key && !r.narrowed && filled.has(r.key)));
  };

  const found: UnprovenLoop[] = [];
  // `outer`: the check loop around, and whether it asserts of its own on each item.
  const walk = (n: ts.Node, outer: { asserts: boolean } | undefined) => {
    if (isNamedFunction(n)) return;
    const loop = f.loopOf(n);
    if (!loop || !f.asserts(loop.body)) {
      ts.forEachChild(n, (c) => walk(c, outer));
      return;
    }
    if (!outer?.asserts && !proven(loop)) {
      found.push({
        file: f.file,
        line: f.source.getLineAndCharacterOfPosition(loop.node.getStart()).line + 1,
        test: test.title,
        collection: loop.collection?.getText().replace(/\s+/g, " ") ?? "(none)",
        skips: f.skipEnd(loop) !== undefined,
      });
    }
    const inner = (m: ts.Node) => !!f.loopOf(m) && f.asserts(f.loopOf(m)!.body);
    const own = !inner(loop.body) && contains(loop.body, (m) => f.isAssertion(m), (m) => !isNamedFunction(m) && !inner(m));
    ts.forEachChild(loop.node, (c) => walk(c, c === loop.body ? { asserts: own } : outer));
  };
  walk(test.body, undefined);
  return found;
}
