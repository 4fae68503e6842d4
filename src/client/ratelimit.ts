// `RateLimit` and `RateLimit-Policy` (structured form of the IETF ratelimit-headers
// draft, RFC 9651 structured fields), parsed by `structured-headers`:
//   RateLimit-Policy: "default";q=60;w=60
//   RateLimit:        "default";r=59;t=42
// The pair describes one window, the binding one, named first. Headers that do not
// parse are ignored (undefined), never thrown on: they inform, they do not decide.
import { parseList, Token, type Item, type List } from "structured-headers";

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
  const limit = headers.get("ratelimit");
  if (limit === null) return undefined;
  const items = list(limit);
  const first = items?.[0];
  if (!first) return undefined;
  const policy = name(first);
  if (policy === undefined) return undefined;
  const policyHeader = headers.get("ratelimit-policy");
  const described = policyHeader === null ? undefined : list(policyHeader)?.find((p) => name(p) === policy);
  return {
    policy,
    remaining: num(first, "r"),
    reset: num(first, "t"),
    quota: described && num(described, "q"),
    window: described && num(described, "w"),
  };
}

function list(value: string): Item[] | undefined {
  let parsed: List;
  try {
    parsed = parseList(value);
  } catch {
    return undefined;
  }
  // Inner lists carry no policy; only items do.
  return parsed.filter((m): m is Item => !Array.isArray(m[0]));
}

function name(item: Item): string | undefined {
  const v = item[0];
  if (typeof v === "string") return v;
  if (v instanceof Token) return v.toString();
  return undefined;
}

function num(item: Item, key: string): number | undefined {
  const v = item[1].get(key);
  return typeof v === "number" ? v : undefined;
}
