import { createHubClient, HubApiError } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

try {
  const { data: article } = await hub.GET("/v1/knowledge/{slug}", { params: { path: { slug: "getting-started" } } });
  console.log(article.slug, article.lang);
} catch (error) {
  if (error instanceof HubApiError && error.code === "not_found") console.log("no such public article");
  else throw error;
}
