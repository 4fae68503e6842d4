// Auto-paging over any `{ data, next_cursor }` collection: `next_cursor` is passed back
// unchanged as `cursor` until it is `null`. Iterate a `Paginator` for items, or its
// `pages()` for whole pages (each a `HubResult`, with the request id and rate limit).
import type { MaybeOptionalInit } from "openapi-fetch";
import type { paths } from "../../generated/types.ts";
import type { HubCore, HubResult, InitArg, PathsWith, SuccessData } from "./client.ts";

export interface Collection<T> {
  data: T[];
  next_cursor: string | null;
}

type GetData<P extends keyof paths> = SuccessData<paths[P]["get"]>;
/** The page type of a collection path (`GenerationPage` for `/v1/generations`). */
export type CollectionData<P extends CollectionPath> = GetData<P>;

/** GET paths whose answer is a `{ data, next_cursor }` collection. */
export type CollectionPath = {
  [P in PathsWith<"get">]: GetData<P> extends { data: unknown[]; next_cursor: unknown } ? P : never;
}[PathsWith<"get">];

/** The item type of a collection path (`GenerationRecord` for `/v1/generations`). */
export type ItemOf<P extends CollectionPath> = GetData<P> extends { data: (infer T)[] } ? T : never;

/**
 * Pages of a collection. `R` is what one page read answers (a `HubResult` for typed
 * paths); `pages()` yields it, iterating the paginator yields the items.
 */
export class Paginator<T, R = HubResult<Collection<T>>> implements AsyncIterable<T> {
  readonly #fetchPage: (cursor: string | undefined) => Promise<R>;
  readonly #collection: (page: R) => Collection<T>;
  constructor(fetchPage: (cursor: string | undefined) => Promise<R>, collection: (page: R) => Collection<T>) {
    this.#fetchPage = fetchPage;
    this.#collection = collection;
  }

  /** Every page, first to last; `next_cursor` is passed back byte for byte. */
  async *pages(): AsyncGenerator<R, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.#fetchPage(cursor);
      yield page;
      cursor = this.#collection(page).next_cursor ?? undefined;
    } while (cursor !== undefined);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* this.#collection(page).data;
  }

  /** Collects every item (reads every page). */
  async toArray(): Promise<T[]> {
    const all: T[] = [];
    for await (const item of this) all.push(item);
    return all;
  }
}

/** Pages through a typed collection path; `init` is the first page's (query `limit`, `type`, ...). */
export function paginate<P extends CollectionPath, I extends MaybeOptionalInit<paths[P], "get">>(
  hub: HubCore,
  path: P,
  ...init: InitArg<I>
): Paginator<ItemOf<P>, HubResult<GetData<P>>> {
  const first = (init[0] ?? {}) as { params?: { query?: Record<string, unknown> } & Record<string, unknown> } & Record<string, unknown>;
  return new Paginator((cursor) => {
    const params = { ...first.params, query: { ...first.params?.query, ...(cursor !== undefined && { cursor }) } };
    return (hub.GET as (p: string, i: object) => Promise<HubResult<GetData<P>>>)(path, { ...first, params });
  }, (page) => page.data as unknown as Collection<ItemOf<P>>);
}

/** Pages through any `{ data, next_cursor }` collection given a page reader. */
export function paginateWith<T>(fetchPage: (cursor: string | undefined) => Promise<Collection<T>>): Paginator<T, Collection<T>> {
  return new Paginator(fetchPage, (page) => page);
}
