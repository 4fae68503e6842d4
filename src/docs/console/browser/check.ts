// The body checked before sending, with the simulator's own rules and words: the validators
// compiled ahead of time from the contract (validators.ts) and the mapping of their errors
// to details the simulator uses (src/contract/details.ts). The two refusals of a JSON body
// before its schema (none, not JSON) are the simulator's too (pipeline/context.ts,
// readJson); test/docs/console.test.ts holds the words equal.
import { validateChosenWith, type CheckFunction, type Detail } from "../../../contract/details.ts";
import type { ConsoleBody } from "../model.ts";

export type Validators = Readonly<Record<string, CheckFunction>>;

export const NO_BODY: Detail = { reason: "required", message: "a JSON body is required" };
export const NOT_JSON: Detail = { reason: "invalid", message: "the body is not valid JSON" };

/** What the simulator would say of this body, field by field; empty when the contract takes it. */
export function checkBody(validators: Validators, body: ConsoleBody, text: string): Detail[] {
  if (body.form === "file" || body.schema === null) return [];
  let value: unknown;
  if (body.form === "form") {
    value = Object.fromEntries(new URLSearchParams(text));
  } else {
    if (text === "") return body.required ? [NO_BODY] : [];
    try {
      value = JSON.parse(text);
    } catch {
      return [NOT_JSON];
    }
  }
  return validateChosenWith((ref) => {
    const validate = validators[ref];
    if (!validate) throw new Error(`no validator for ${ref} in the page`);
    return validate;
  }, body.schema, value);
}
