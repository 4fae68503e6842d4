// What holds for every JSON body: field names in snake_case, centi-credit fields integers.
import { broke, held, type AnswerCheck, type Finding } from "./check.ts";

const SNAKE = /^[a-z0-9]+(?:_[a-z0-9]+)*$/;
/** Maps whose keys are not field names (HTTP header names of an upload ticket). */
const MAP_FIELDS = new Set(["headers"]);

export const jsonBody: AnswerCheck = {
  name: "a JSON body",
  rules: ["W-3"],
  check: (ex) => (ex.json !== undefined ? [held("W-3")] : []),
};

export const snakeCase: AnswerCheck = {
  name: "field names are snake_case",
  rules: ["W-2"],
  check(ex) {
    if (ex.json === undefined) return [];
    const keys = fieldsOf(ex.json).filter(([, k]) => !SNAKE.test(k.replace(/vendor[AB]/g, "vendor"))).map(([at]) => at);
    return keys.length > 0 ? [broke("W-2", `field names not in snake_case: ${keys.slice(0, 5).join(", ")}`)] : [held("W-2")];
  },
};

export const centiCredits: AnswerCheck = {
  name: "centi-credit fields are integers",
  rules: ["W-6"],
  check(ex) {
    if (ex.json === undefined) return [];
    const ccs = fieldsOf(ex.json).filter(([, k, v]) => k.endsWith("_cc") && v !== null && !Number.isInteger(v)).map(([at]) => at);
    const out: Finding[] = [];
    if (ccs.length > 0) out.push(broke("W-6", `centi-credit fields that are not integers: ${ccs.slice(0, 5).join(", ")}`));
    else if (/_cc"\s*:/.test(ex.text)) out.push(held("W-6"));
    return out;
  },
};

/** Every field of a JSON value: its path, its name and its value (not inside maps whose keys are not field names). */
function fieldsOf(value: unknown, path = ""): [string, string, unknown][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => fieldsOf(v, `${path}[${i}]`));
  if (!value || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const at = path ? `${path}.${k}` : k;
    // The seed's neutral vendor placeholders (`vendorA_model`) stand in for part of a name.
    return [[at, k, v] as [string, string, unknown], ...(MAP_FIELDS.has(k) ? [] : fieldsOf(v, at))];
  });
}
