// The envelope of a refusal: the request id generated and repeated, Russian only on
// request (and, over the run, whether the server translates at all), a body that is not
// JSON refused cleanly, an unknown route answered `not_found`.
import { randomToken } from "../../kit/ids.ts";
import { type Check } from "../../facts/check.ts";

export const envelope: Check = {
  name: "the envelope and the request id",
  rules: ["EP-2", "ENV-3", "ENV-6", "EP-1", "PRICE-7"],
  async run(c) {
    // Generated when absent, on a success and on a refusal; the body repeats it.
    const plain = await c.get("/v1/whoami", "EP-2", { requestId: false });
    c.expect(Boolean(plain.headers.get("x-request-id")), "EP-2", "no X-Request-Id generated when none was sent", plain);
    const refused = await c.get("/v1/generations?limit=0", "EP-2", { requestId: false });
    c.target.deliberate(refused);
    const header = refused.headers.get("x-request-id");
    const body = refused.json?.error?.request_id;
    if (header && typeof body === "string") c.expect(header === body, "EP-2", `the generated X-Request-Id ${header} differs from error.request_id ${body}`, refused);

    // Russian only on request, English otherwise; message always English. Every answer is
    // held to it as it comes (Target.observe); a few refusals of different codes are asked
    // for in Russian here, so that `localisation` can tell a server that never translates.
    const ru = await c.get("/v1/generations?limit=0", "ENV-3", { headers: { "accept-language": "ru" } });
    c.target.deliberate(ru);
    const ruNoKey = await c.get("/v1/whoami", "ENV-3", { key: null, headers: { "accept-language": "ru" } });
    c.target.deliberate(ruNoKey);
    const ruNowhere = await c.get(`/v1/conformance-no-such-route-${randomToken()}`, "ENV-3", { headers: { "accept-language": "ru-RU, ru;q=0.9" } });
    c.target.deliberate(ruNowhere);
    const de = await c.get("/v1/generations?limit=0", "ENV-3", { headers: { "accept-language": "de-DE, de;q=0.9" } });
    c.target.deliberate(de);

    // A body that is not JSON: a clean envelope, no parser message.
    const broken = await c.request({ method: "POST", path: "/v1/pricing/estimate", raw: '{"type": "video", "model": ', headers: { "content-type": "application/json" }, rule: "ENV-6", direct: true });
    c.target.deliberate(broken);
    c.refusal(broken, "invalid_request", "PRICE-7", "an estimate whose body is not JSON");

    // An unknown route answers not_found in the envelope.
    const nowhere = await c.get(`/v1/conformance-no-such-route-${randomToken()}`, "EP-1");
    c.target.deliberate(nowhere);
    c.refusal(nowhere, "not_found", "EP-1", "an unknown /v1 route");
  },
};

/**
 * Whether the server translates at all, judged over the run: the seed lets `user_message`
 * equal `message` where no translation exists, but a server whose refusals asked for in
 * Russian never carry Russian has no translations, and Russian is what `Accept-Language:
 * ru` asks for.
 */
export const localisation: Check = {
  name: "Russian wording over the run",
  rules: ["ENV-3"],
  when: "over the run",
  async run(c) {
    const asked = c.seen.localisation;
    if (asked.length === 0) {
      c.skip(["ENV-3"], "no refusal was asked for in Russian");
      return;
    }
    const codes = (list: typeof asked) => [...new Set(list.map((a) => a.code))].sort();
    const russian = codes(asked.filter((a) => a.russian));
    if (russian.length === 0) {
      c.fail("ENV-3", `under Accept-Language: ru, none of the ${asked.length} refusals (${codes(asked).join(", ")}) carried a Russian user_message: the server never localises`);
      return;
    }
    c.pass("ENV-3");
    const plain = codes(asked).filter((code) => !russian.includes(code));
    if (plain.length > 0) c.note("ENV-3", `no Russian wording for ${plain.join(", ")}: user_message equals message`);
  },
};
