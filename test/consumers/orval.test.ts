// orval on the published bundle: a fetch client with its models, MSW handlers with faker
// mocks, and zod schemas.
import { describeGenerator, generator } from "./support.ts";

describeGenerator(generator("orval"));
