// Narrowing a submit body by its `type`, for the types of any code generator. The 3D
// variant's `type` value is not shown, so the contract defines it as "any string but the
// known types": every generator types it `string`, and TypeScript then keeps the 3D variant
// in `if (body.type === "video")` (a string may be "video"). These guards pick the member
// by its literal instead. The project's own types need no guard (their 3D `type` is a
// placeholder literal), but the guards work on them too.
import { KNOWN_SUBMIT_TYPES } from "./limits.ts";

/** The `type` of a known submit variant: `video`, `image`, `upscale`, `text`. */
export type KnownSubmitType = (typeof KNOWN_SUBMIT_TYPES)[number];

/** Whether a string is the `type` of a known submit variant (else it is the 3D variant's). */
export function isKnownSubmitType(value: string): value is KnownSubmitType {
  return (KNOWN_SUBMIT_TYPES as readonly string[]).includes(value);
}

/**
 * The member of a submit union `S` whose `type` is the literal `T`. A member whose `type` is
 * `string` (the 3D variant in most generators) or `any` (in swagger-typescript-api) is not it:
 * `Extract<S, { type: T }>` would keep an `any` member for every literal.
 */
export type SubmitOfType<S, T extends KnownSubmitType> = S extends { type: infer U } ? (IsAny<U> extends true ? never : [U] extends [T] ? S : never) : never;

/** The 3D member of a submit union `S`: its `type` is none of the known literals. */
export type Model3dSubmitOf<S> = S extends { type: infer U } ? (IsAny<U> extends true ? S : [U] extends [KnownSubmitType] ? never : S) : never;

type IsAny<T> = 0 extends 1 & T ? true : false;

/**
 * Whether a submit body is the known variant `type`, narrowing it to that member of its
 * union, whichever generator wrote the union.
 *
 * ```ts
 * if (isSubmitOfType(body, "video")) body.duration; // VideoSubmit
 * ```
 */
export function isSubmitOfType<S extends { type: string }, T extends KnownSubmitType>(body: S, type: T): body is SubmitOfType<S, T> {
  return body.type === type;
}

/** Whether a submit body is the 3D variant: a `type` that no known variant has. */
export function isModel3dSubmit<S extends { type: string }>(body: S): body is Model3dSubmitOf<S> {
  return !isKnownSubmitType(body.type);
}
