// Site sessions (simulator conventions: the seed shows neither the cookie's name nor how
// it is obtained). domain/sessions.ts signs in, finds and ends them.

export const SESSION_COOKIE = "gh_session";

export interface SessionOptions {
  /**
   * Origins allowed on mutating session requests besides the simulator's own address.
   * Default: any loopback origin (`http(s)://localhost`, `127.0.0.1`, `[::1]`, any port).
   * A list replaces that default (`*` allows any origin).
   */
  allowedOrigins?: readonly string[];
  /** Simulated seconds a session lasts (default 7 days). */
  ttlSeconds?: number;
  /** Requests per window of the account-owned session window (default: the account quota). */
  quota?: number;
}

export interface Session {
  /** Public id (whoami `key_id`, control interface). */
  id: string;
  /** The cookie's value. */
  secret: string;
  account_id: string;
  created_at: number;
  expires_at: number;
}
