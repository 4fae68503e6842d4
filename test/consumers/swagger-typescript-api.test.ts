// swagger-typescript-api on the published bundle: one `Api` class on fetch with the models.
import { describeGenerator, generator } from "./support.ts";

describeGenerator(generator("swagger-typescript-api"));
