// The guides' Markdown renderer: the subset the guides use, rendered as a reader expects,
// with every link going through the site's resolver and no raw HTML passed through.
import { describe, expect, it } from "vitest";
import { renderMarkdown, slugify } from "../../src/docs/markdown.ts";

describe("guides' Markdown renderer", () => {
  it("renders headings with unique ids and lists them", () => {
    const r = renderMarkdown("# Title\n\n## 1. Start here\n\n## Start here\n\n### `error.code` rules");
    expect(r.headings.map((h) => [h.level, h.id])).toEqual([
      [1, "title"],
      [2, "1-start-here"],
      [2, "start-here"],
      [3, "errorcode-rules"],
    ]);
    expect(r.html).toContain('<h2 id="1-start-here">1. Start here');
    expect(r.html).toContain("<h3 id=\"errorcode-rules\"><code>error.code</code> rules");
  });

  it("renders pipe tables, escaping pipes inside code and cells", () => {
    const r = renderMarkdown("| Code | Status |\n|---|---:|\n| `a\\|b` | 400 |\n| `x` | 5 |");
    expect(r.html).toContain("<thead><tr><th>Code</th><th style=\"text-align:right\">Status</th></tr></thead>");
    expect(r.html).toContain("<td><code>a|b</code></td>");
    expect((r.html.match(/<tr>/g) ?? []).length).toBe(3);
  });

  it("renders fenced code verbatim and escaped", () => {
    const r = renderMarkdown("```sh\ncurl -H \"A: <b>\" $X | jq\n```");
    expect(r.html).toBe('<pre><code class="language-sh">curl -H &quot;A: &lt;b&gt;&quot; $X | jq</code></pre>');
  });

  it("refuses an unclosed fence instead of swallowing the rest of the guide", () => {
    expect(() => renderMarkdown("```\nno end")).toThrow(/Unclosed code fence/);
  });

  it("renders bullet and numbered lists, nested and with continuation lines", () => {
    const r = renderMarkdown("1. one\n   more of one\n2. two\n   - inner a\n   - inner b\n3. three");
    expect(r.html).toBe("<ol><li>one\nmore of one</li><li>two\n<ul><li>inner a</li><li>inner b</li></ul></li><li>three</li></ol>");
  });

  it("escapes raw HTML and resolves every link through the resolver", () => {
    const seen: string[] = [];
    const r = renderMarkdown("See <script>x</script> [the **op**](op:submitGeneration) and [b](b.md#x).", {
      resolveLink: (href) => {
        seen.push(href);
        return `resolved/${href}`;
      },
    });
    expect(r.html).not.toContain("<script>");
    expect(r.html).toContain("&lt;script&gt;");
    expect(r.html).toContain('<a href="resolved/op:submitGeneration">the <strong>op</strong></a>');
    expect(seen).toEqual(["op:submitGeneration", "b.md#x"]);
    expect(r.links).toEqual(["resolved/op:submitGeneration", "resolved/b.md#x"]);
  });

  it("renders an image through the resolver, its alt text escaped", () => {
    const r = renderMarkdown("Look: ![The **page** <live>](images/page.png)", { resolveLink: (href) => `../${href}` });
    expect(r.html).toContain('<img src="../images/page.png" alt="The page &lt;live&gt;">');
    expect(r.links).toEqual(["../images/page.png"]);
  });

  it("a resolver that throws fails the render (a broken link fails the build)", () => {
    expect(() =>
      renderMarkdown("[x](op:nope)", {
        resolveLink: () => {
          throw new Error("broken link op:nope");
        },
      }),
    ).toThrow(/broken link/);
  });

  it("leaves snake_case and underscores alone", () => {
    expect(renderMarkdown("next_cursor and _cc fields").html).toBe("<p>next_cursor and _cc fields</p>");
  });

  it("renders block quotes, rules, emphasis and drops HTML comments", () => {
    const r = renderMarkdown("> **Note:** *careful*\n\n---\n\n<!-- hidden -->\ntext");
    expect(r.html).toBe("<blockquote><p><strong>Note:</strong> <em>careful</em></p></blockquote>\n<hr>\n<p>text</p>");
  });

  it("slugs like GitHub", () => {
    expect(slugify("Branch on error.code")).toBe("branch-on-errorcode");
    expect(slugify("reset: when the cursor cannot be resumed")).toBe("reset-when-the-cursor-cannot-be-resumed");
  });
});
