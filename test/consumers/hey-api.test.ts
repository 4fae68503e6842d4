// @hey-api/openapi-ts on the published bundle: its fetch client, SDK functions and types.
import { describeGenerator, generator } from "./support.ts";

describeGenerator(generator("hey-api"));
