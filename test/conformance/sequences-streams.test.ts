// Properties across calls of the event stream and the OAuth grants (the sequence around a
// submit in src/conformance/sequences/submits.ts, and the sequences added to the OAuth
// flow): against a server with one bug that only a sequence of requests shows (a status
// left off the stream, a stream that ignores its types, a cache of token checks, a key_id
// that is not the grant's, a refresh that widens), the default run fails exactly the rule
// it breaks. Each run is narrowed to its rules.
import { describe } from "vitest";
import { failsEach } from "./support/against.ts";
import { SEQUENCE_DOUBLES, STREAM_RULES } from "./support/doubles-sequences.ts";

/** What each failure says, by the double's title. */
const SAYS: Record<string, RegExp> = {
  "checks the types of an event stream and then ignores them (every generation's events come)": /^a stream opened with types=[\w,]+ got \d+ event\(s\) of gen_\w+, a \w+ generation \(QUEUED, /,
  "gives a refresh every scope it asks for, also scopes the grant does not hold": /^a refresh asking for [\w:]+, a scope the grant \([\w: ]+\) does not hold, gave a token with it \(reply scope "[\w: ]+", whoami "[\w: ]*"\); a refresh only narrows$/,
  "leaves the PENDING status out of the event stream (the record reads PENDING)": /^gen_\w+ was read as QUEUED -> PENDING -> RUNNING -> DONE but its events say QUEUED -> RUNNING -> DONE: PENDING did not come on the stream in that order/,
  "caches token checks: an access token once accepted stays accepted after its grant is revoked": /^the grant's first access token \(used on \/v1 before\) after a used refresh token was presented on revoke: expected 401 invalid_token, got 200$/,
  "names the access token's own id as key_id in whoami (not its grant's)": /^whoami says key_id "tok_\w+" for a refreshed access token and "tok_\w+" for the token of the same grant it was refreshed from; key_id is the grant's id$/,
};

describe("properties across calls: the event stream and the OAuth grants", () => {
  failsEach(SEQUENCE_DOUBLES.filter((d) => STREAM_RULES.includes(d.rule)), SAYS, STREAM_RULES);
});
