// Observable rules the suite has no check for, and why. Such a rule shows as `n/a` with
// this reason (unless an observation in the run touched it). A test keeps this list and
// the checks together: every seed rule is checked, listed here, or `observable: false`.
// Rules that need an input the caller may not have (a second account, a site session, an
// OAuth token or auto-consent, a client ID metadata document) are checked when it is
// given; their checks say so when it is not.
export const UNCHECKED: Readonly<Record<string, string>> = {
  "W-12": "that payments, card data and provider identifiers are never published cannot be established by sampling answers",
  "GEN-8": "the name of the title field is not shown in the seed",
  "GEN-6": "a client cannot cause a refund (a record that carries `refunded` is still checked against the schema)",
  "EP-5": "a gap of the seed: there is nothing to observe",
  "OAUTH-9": "the consent screen needs a user in a browser",
  "LIM-7": "it restates limits checked under PAGE-3, BATCH-1, EVT-12, EVT-8, UPL-5, SUP-3 and REP-2",
  "VER-1": "the API does not publish its interface version (the /v1 routes are checked under EP-4)",
  "VER-2": "stability across versions cannot be observed in one run",
  "VER-3": "the seed names no retired route",
  "VER-4": "a gap of the seed: there is nothing to observe",
  "GAP-1": "about the contract document, not the server",
  "GAP-2": "about the contract document, not the server",
};
