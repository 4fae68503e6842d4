// Properties across calls that need control of the server (src/conformance/checks/states/
// controlled.ts): the simulator's control (`simulatorControl`, as the CLI's own simulator
// has it) cancels and deletes generations, revokes a key while it is in use and makes a
// provider's result come late. Against a server with one bug only such a sequence shows
// (a cancellation or deletion event that says the wrong thing, a cancelled generation
// still read, a cache of key checks, a late result without its event or its refund, a
// window's Retry-After that is not whole seconds or not true, a refusal's pair that
// describes another window), the default run fails exactly the rule it breaks. Each run
// is narrowed to its rules.
import { describe } from "vitest";
import { failsEach } from "./support/against.ts";
import { CONTROL_RULES, SEQUENCE_DOUBLES } from "./support/doubles-sequences.ts";

/** What each failure says, by the double's title. */
const SAYS: Record<string, RegExp> = {
  "sends a cancellation's FAILED event without deleted: true": /^the cancellation of gen_\w+ came on the stream as FAILED deleted=false; one event with status FAILED and deleted: true$/,
  "sends a deletion's event with status FAILED instead of the generation's own": /^the deletion of gen_\w+ came on the stream as FAILED deleted=true; one event with status DONE and deleted: true$/,
  "still reads a cancelled generation by its id": /^gone after its cancellation: readGeneration \(GET \/v1\/generations\/\{id\}\) \(link ReadFirstListed\) after its cancellation answered 200: the gone object gen_\w+ was acted on; it answers 404 not_found$/,
  "reads a generation DONE by a late result without refunded": /^after its late result, gen_\w+ read 200 DONE with \d+ output_urls and no refunded; DONE, with output_urls and refunded$/,
  "sends no event when a late result turns a FAILED generation DONE": /^the generation gen_\w+ whose result came late showed on the stream as [A-Z_, ]*FAILED; a FAILED event, then a separate DONE event$/,
  "gives Retry-After as an HTTP date when a request window refuses": /^the request past the window's quota answered 429 with Retry-After "\w{3}, \d\d \w{3} \d{4} [\d:]+ GMT"; whole seconds$/,
  "says Retry-After: 0 when a request window refuses, whatever is left of the window": /^0 s after a 429 whose Retry-After said 0, the key was still refused; Retry-After says when it is served again$/,
  "describes the account window, not the refusing key window, in the pair of a key window's refusal": /^the request past the default window's quota answered 429 with the pair "account" r=\d+; a refusing window describes itself: "default" with r=0$/,
  "caches key checks: a key once accepted keeps working after it is revoked": /^a key revoked while in use: listGenerations \(GET \/v1\/generations\) with a key revoked during the run answered 200: served; expected 401 api_key_revoked$/,
};

describe("properties across calls: with control of the server", () => {
  failsEach(SEQUENCE_DOUBLES.filter((d) => CONTROL_RULES.includes(d.rule)), SAYS, CONTROL_RULES);
});
