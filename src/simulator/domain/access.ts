// Access withdrawn while a stream is open (a key revoked or expired, account access lost
// or suspended, the API switched off, a scope lost): every open stream goes through the
// refusal ladder again, and one that would now be refused gets `terminated` with the
// refusal a reconnect would get.
import { operationById } from "../../contract/document.ts";
import type { HubBase } from "../state/base.ts";
import { accountRefusal, authenticate, scopeRefusal, type CredentialResolver } from "./credentials.ts";
import type { EventHub } from "./events.ts";
import { envelope, Refusal, refuse } from "./refusal.ts";

export function recheckStreams(hub: HubBase, events: EventHub, resolvers: readonly CredentialResolver[]): void {
  const streamOperation = operationById("streamGenerationEvents");
  for (const stream of [...events.openStreams]) {
    let refusal: Refusal | undefined;
    if (!hub.state.api_enabled) refusal = refuse("api_disabled");
    else {
      const credential = authenticate(hub.state, resolvers, stream.authorization, stream.cookie, hub.clock.now(), hub.publicUrl ?? "");
      if (credential instanceof Refusal) refusal = credential;
      else refusal = accountRefusal(hub.state.accounts.get(credential.accountId)) ?? scopeRefusal(credential, streamOperation, "");
    }
    if (refusal) events.terminate(stream, envelope(refusal, stream.requestId, stream.lang));
  }
}
