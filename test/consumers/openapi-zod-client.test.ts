// openapi-zod-client on the published bundle: a Zodios client with zod schemas.
import { describeGenerator, generator } from "./support.ts";

describeGenerator(generator("openapi-zod-client"));
