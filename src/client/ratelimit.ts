// `RateLimit` and `RateLimit-Policy` (structured form of the IETF ratelimit-headers
// draft, RFC 9651 structured fields), parsed by `structured-headers`:
//   RateLimit-Policy: "default";q=60;w=60
//   RateLimit:        "default";r=59;t=42
// The pair describes one window, the binding one, named first. Headers that do not
// parse are ignored (undefined), never thrown on: they inform, they do not decide.
import { parseList, type Item } from "structured-headers";

export interface RateLimit {
  /** The binding window: `default` (this key) or `account` (all keys of the account). */
  policy: string;
  /** Requests left in the window (`r`). */
  remaining: number | undefined;
  /** Seconds until the window resets (`t`). */
  reset: number | undefined;
  /** Quota of the window (`q` of `RateLimit-Policy`). */
  quota: number | undefined;
  /** Window length in seconds (`w` of `RateLimit-Policy`). */
  window: number | undefined;
}

export function parseRateLimit(headers: Headers): RateLimit | undefined {
  const limit = items(headers.get("ratelimit"))[0];
  if (!limit) return undefined;
  // The policy is a quoted string (a token would read the same through toString).
  const policy = String(limit[0]);
  const described = items(headers.get("ratelimit-policy")).find((p) => String(p[0]) === policy);
  return {
    policy,
    remaining: num(limit, "r"),
    reset: num(limit, "t"),
    quota: described && num(described, "q"),
    window: described && num(described, "w"),
  };
}

/** The items of a structured-field list (inner lists carry no policy); none when absent or malformed. */
function items(value: string | null): Item[] {
  try {
    return value === null ? [] : parseList(value).filter((m): m is Item => !Array.isArray(m[0]));
  } catch {
    return [];
  }
}

function num(item: Item, key: string): number | undefined {
  const v = item[1].get(key);
  return typeof v === "number" ? v : undefined;
}
