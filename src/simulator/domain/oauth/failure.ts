// An answer in the OAuth error form (RFC 6749, 7009, 7591): the routes of the
// authorization server refuse with `error` and `error_description`, not the envelope.

export type Failure = { status: number; error: string; description: string };

export const failure = (status: number, error: string, description: string): Failure => ({ status, error, description });

export function isFailure(x: unknown): x is Failure {
  return typeof x === "object" && x !== null && "error" in x && "status" in x;
}
