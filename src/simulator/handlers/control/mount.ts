// The control interface's mount at /_sim/: its guard (pipeline/guard.ts), then the route
// of the table (`METHOD path`, handlers/control/*.ts) that the method and decoded path
// segments match. Faults never act here, so a fault can always be cleared.
import { refuse, type Refusal } from "../../domain/refusal.ts";
import type { Ctx } from "../../pipeline/context.ts";
import type { Mount } from "../../pipeline/dispatch.ts";
import type { SimResponse } from "../../pipeline/exchange.ts";
import { CONTROL_PREFIX } from "../../state/faults.ts";
import type { ControlHandler, ControlRoutes } from "./body.ts";

interface Pattern {
  /** As the table names it: `POST keys/{key}/revoke`. */
  route: string;
  method: string;
  /** Literal segments, or `null` where the path names a parameter. */
  segments: readonly (string | null)[];
  names: readonly string[];
  handle: ControlHandler;
}

function patternOf(route: string, handle: ControlHandler): Pattern {
  const space = route.indexOf(" ");
  const method = route.slice(0, space);
  const parts = route.slice(space + 1).split("/").filter(Boolean);
  const names: string[] = [];
  const segments = parts.map((part) => {
    const param = /^\{(\w+)\}$/.exec(part);
    if (!param) return part;
    names.push(param[1]!);
    return null;
  });
  return { route: `${method} ${CONTROL_PREFIX}${parts.join("/")}`, method, segments, names, handle };
}

/** The decoded segments after /_sim/, or undefined when one does not decode. */
function segmentsOf(path: string): string[] | undefined {
  try {
    return path.slice(CONTROL_PREFIX.length).split("/").filter(Boolean).map((p) => decodeURIComponent(p));
  } catch {
    return undefined;
  }
}

/** The parameters when `segments` fit the pattern's path. */
function fit(pattern: Pattern, segments: readonly string[]): Record<string, string> | undefined {
  if (pattern.segments.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  let n = 0;
  for (let i = 0; i < segments.length; i++) {
    const literal = pattern.segments[i];
    if (literal === null) params[pattern.names[n++]!] = segments[i]!;
    else if (literal !== segments[i]) return undefined;
  }
  return params;
}

/** The control interface at /_sim/ answering the routes of `routes`, behind `guard`. */
export function controlMount(routes: ControlRoutes, guard: Mount["guard"]): Mount {
  // Literal segments win over parameters (`oauth/documents` before `sessions/{id}`-like paths).
  const patterns = Object.entries(routes)
    .map(([route, handle]) => patternOf(route, handle))
    .sort((a, b) => a.names.length - b.names.length);
  const handle = (ctx: Ctx): SimResponse | Refusal => {
    const segments = segmentsOf(ctx.path);
    if (!segments) return refuse("not_found", { message: "No such control route: the path does not decode." });
    const method = ctx.req.method;
    const others = new Set<string>();
    for (const pattern of patterns) {
      const params = fit(pattern, segments);
      if (!params) continue;
      if (pattern.method !== method) {
        others.add(pattern.method);
        continue;
      }
      ctx.route = pattern.route;
      return pattern.handle(ctx, params);
    }
    if (others.size === 0) return refuse("not_found", { message: `No control route ${method} ${ctx.path}.` });
    const allowed = [...others].join(", ");
    return refuse("not_found", { message: `No control route ${method} ${ctx.path}: this path takes ${allowed}.`, headers: { allow: allowed } });
  };
  return { prefix: CONTROL_PREFIX, handle, guard, faults: false };
}
