// openapi-typescript with its default options on the published bundle, with openapi-fetch.
import { describeGenerator, generator } from "./support.ts";

describeGenerator(generator("openapi-typescript"));
