import { describe, expect, it } from "vitest";
import { formatsFrom, render } from "../../../src/channels/feishu/format.js";

const parse = (content: string) => JSON.parse(content) as Record<string, unknown>;

describe("rendering a Markdown reply for Feishu", () => {
  it("puts Markdown into a JSON 2.0 card's markdown element", () => {
    const rendered = render("# Title\n| a | b |\n|---|---|\n| 1 | 2 |", "card");
    expect(rendered.msgType).toBe("interactive");
    expect(parse(rendered.content)).toEqual({
      schema: "2.0",
      config: { width_mode: "fill" },
      body: { elements: [{ tag: "markdown", content: "# Title\n| a | b |\n|---|---|\n| 1 | 2 |" }] },
    });
  });

  it("makes a post of one paragraph per line, with Markdown links as link elements", () => {
    const markdown = "See [the docs](https://example.com/a) and [x](https://b.example).\n\nplain [not a link](ftp://x)";
    const rendered = render(markdown, "post");
    expect(rendered.msgType).toBe("post");
    expect(parse(rendered.content)).toEqual({
      zh_cn: {
        title: "",
        content: [
          [
            { tag: "text", text: "See " },
            { tag: "a", text: "the docs", href: "https://example.com/a" },
            { tag: "text", text: " and " },
            { tag: "a", text: "x", href: "https://b.example" },
            { tag: "text", text: "." },
          ],
          [{ tag: "text", text: "" }],
          [{ tag: "text", text: "plain [not a link](ftp://x)" }],
        ],
      },
    });
  });

  it("sends text as it is", () => {
    const content = JSON.stringify({ text: "**bold** text" });
    expect(render("**bold** text", "text")).toEqual({ format: "text", msgType: "text", content });
  });

  it("never turns a mention tag in the reply into a real mention", () => {
    const reply = 'Done <at id=all></at> and <AT user_id="all">everyone</AT>';
    for (const format of ["card", "post", "text"] as const) {
      const content = render(reply, format).content;
      expect(content).not.toMatch(/<at/i);
      expect(content).toContain("<\u200bat id=all>");
    }
  });

  it("falls back from card to post to text, and text is always last", () => {
    expect(formatsFrom("card")).toEqual(["card", "post", "text"]);
    expect(formatsFrom("post")).toEqual(["post", "text"]);
    expect(formatsFrom("text")).toEqual(["text"]);
  });
});
