// A token store for one grant. oauth4webapi stores nothing, so this is where the
// refresh discipline lives:
// - one refresh at a time: callers that need a fresh token while a refresh is running
//   share that refresh (50 concurrent callers make one token request);
// - the rotated refresh token is saved (storage.save) before any waiter is released,
//   so no caller can ever present the used one again (which would revoke the grant);
// - `invalid_grant` on a refresh: when another process refreshed in parallel, the server
//   keeps the grant and gives the loser `invalid_grant`; the winner's tokens are then in
//   the shared storage, so the store reloads it (a few times, while the winner saves)
//   and adopts them. Only when storage still holds the refresh token that was refused is
//   the grant gone (`OAuthGrantError`, sign in again).
import * as oauth from "oauth4webapi";
import { toTokenSet, type HubOAuthClient, type HubOAuthServer, type TokenSet } from "./flow.ts";

export interface TokenStorage {
  load(): TokenSet | undefined | Promise<TokenSet | undefined>;
  save(tokens: TokenSet): void | Promise<void>;
  clear?(): void | Promise<void>;
}

/** Keeps tokens in memory (one process). Share a durable storage between processes. */
export function memoryStorage(initial?: TokenSet): TokenStorage {
  let tokens = initial;
  return {
    load: () => tokens,
    save: (t) => void (tokens = t),
    clear: () => void (tokens = undefined),
  };
}

/** The grant cannot give tokens any more: sign in again. */
export class OAuthGrantError extends Error {
  override name = "OAuthGrantError";
  /** The OAuth `error` (`invalid_grant`), when the token route answered one. */
  readonly error: string | undefined;
  constructor(message: string, error?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.error = error;
  }
}

export interface TokenStoreOptions {
  storage?: TokenStorage;
  /** Refresh this many seconds before `expires_at` (default 30). */
  refreshSkew?: number;
  /** Narrow the refreshed access token to these scopes (space-separated). */
  scope?: string;
  /** After `invalid_grant`: reloads of storage looking for a parallel winner's tokens (default 5). */
  reloadAttempts?: number;
  /** Milliseconds between those reloads (default 100). */
  reloadDelay?: number;
  /** Clock, for tests. */
  now?: () => number;
}

export class TokenStore {
  readonly #server: HubOAuthServer;
  readonly #client: HubOAuthClient;
  readonly #storage: TokenStorage;
  readonly #options: TokenStoreOptions;
  #tokens: TokenSet | undefined;
  #refreshing: Promise<TokenSet> | undefined;
  /** Token requests this store has sent (for tests and metrics). */
  refreshCount = 0;

  constructor(server: HubOAuthServer, client: HubOAuthClient, options: TokenStoreOptions = {}) {
    this.#server = server;
    this.#client = client;
    this.#storage = options.storage ?? memoryStorage();
    this.#options = options;
  }

  /** Stores the tokens of a code exchange (or any tokens of this grant). */
  async set(tokens: TokenSet): Promise<void> {
    await this.#storage.save(tokens);
    this.#tokens = tokens;
  }

  async current(): Promise<TokenSet | undefined> {
    return (this.#tokens ??= await this.#storage.load());
  }

  /**
   * A usable access token: the stored one, or a refreshed one when it expires within
   * the skew or when `rejected` is the token the API just refused.
   */
  async accessToken(options: { rejected?: string } = {}): Promise<string> {
    let tokens = this.#refreshing ? await this.#refreshing : await this.current();
    if (!tokens) throw new OAuthGrantError("No tokens: sign in first");
    const now = (this.#options.now ?? Date.now)();
    const skew = (this.#options.refreshSkew ?? 30) * 1000;
    const stale = tokens.expires_at !== undefined && tokens.expires_at - skew <= now;
    if (stale || (options.rejected !== undefined && options.rejected === tokens.access_token)) tokens = await this.refresh();
    return tokens.access_token;
  }

  /** The provider for `createHubClient({ token })`: asked on every attempt and every stream reconnect. */
  provider(): (context: { rejected?: string }) => Promise<string> {
    return (context) => this.accessToken({ rejected: context.rejected });
  }

  /** Refreshes now; concurrent calls share one token request. */
  refresh(): Promise<TokenSet> {
    return (this.#refreshing ??= this.#refresh().finally(() => (this.#refreshing = undefined)));
  }

  async #refresh(): Promise<TokenSet> {
    const before = await this.current();
    const used = before?.refresh_token;
    if (!before || used === undefined) throw new OAuthGrantError("No refresh token: sign in again");
    let tokens: TokenSet;
    try {
      this.refreshCount++;
      const response = await oauth.refreshTokenGrantRequest(this.#server.as, this.#client.client, this.#client.auth, used, {
        ...this.#server.http,
        ...(this.#options.scope ? { additionalParameters: { scope: this.#options.scope } } : {}),
      });
      tokens = toTokenSet(await oauth.processRefreshTokenResponse(this.#server.as, this.#client.client, response), before, (this.#options.now ?? Date.now)());
    } catch (error) {
      if (error instanceof oauth.ResponseBodyError && error.error === "invalid_grant") return this.#adoptWinner(used, error);
      throw error;
    }
    // Saved before the waiters of this refresh are released.
    await this.#storage.save(tokens);
    this.#tokens = tokens;
    return tokens;
  }

  /** After `invalid_grant`: a parallel refresh won if storage now holds another refresh token. */
  async #adoptWinner(used: string, error: oauth.ResponseBodyError): Promise<TokenSet> {
    const attempts = this.#options.reloadAttempts ?? 5;
    const delay = this.#options.reloadDelay ?? 100;
    for (let i = 0; i < attempts; i++) {
      const stored = await this.#storage.load();
      if (stored && stored.refresh_token !== used) {
        this.#tokens = stored;
        return stored;
      }
      await new Promise((r) => setTimeout(r, delay));
    }
    this.#tokens = undefined;
    await this.#storage.clear?.();
    throw new OAuthGrantError("The grant refused the refresh token (invalid_grant): sign in again", error.error, { cause: error });
  }
}
