/** The command menu as channels receive it: every text in each catalog language, within the platforms' limits. */
import { describe, expect, it } from "vitest";
import type { ChatCommand } from "../../src/core/commands.js";
import { commandMenuOf } from "../../src/gateway/command-menu.js";
import { Translator } from "../../src/infra/i18n/index.js";
import zhHans from "../../src/infra/i18n/zh-Hans.json" with { type: "json" };

const run = () => Promise.resolve("");
const commands: ChatCommand[] = [
  { name: "help", summary: "show this help", menu: "everyone", run },
  { name: "remind", summary: "set a reminder", usage: "<when> <what>", menu: "everyone", run },
  { name: "pair", summary: "approve a pairing code", usage: "<code>", menu: "owners", run },
  // No catalog key: its own English summary in every language, cut to 100 characters without splitting the emoji.
  { name: "long", summary: `${"a".repeat(98)}😀 and more`, menu: "everyone", run },
  { name: "hidden", summary: "not in the menu", run },
];

describe("the command menu", () => {
  it("gives each text in the default language and in the others, and the owners of this platform", () => {
    const menu = commandMenuOf(commands, ["telegram:42", "discord:7"], "telegram", new Translator("en"));
    expect(menu.locale).toBe("en");
    expect(menu.ownerIds).toEqual(["42"]);
    expect(menu.everyone.map((c) => c.name)).toEqual(["help", "remind", "long"]);
    expect(menu.owners.map((c) => c.name)).toEqual(["pair"]);
    const [help, remind] = menu.everyone;
    expect(help!.description).toEqual({ text: "Show this help", translations: { "zh-Hans": zhHans.commands.help.summary } });
    expect(help!.argument).toBeUndefined();
    expect(remind!.argument).toEqual({ text: "What follows /remind", translations: { "zh-Hans": "/remind 后面的内容" } });
  });

  it("with Chinese as the default, the texts are Chinese and English is the translation", () => {
    const menu = commandMenuOf(commands, [], "discord", new Translator("zh-CN"));
    expect(menu.locale).toBe("zh-Hans");
    expect(menu.everyone[0]!.description).toEqual({ text: zhHans.commands.help.summary, translations: { en: "Show this help" } });
  });

  it("cuts a text over 100 UTF-16 units, never inside a character", () => {
    const long = commandMenuOf(commands, [], "telegram", new Translator("en")).everyone[2]!.description;
    for (const text of [long.text, ...Object.values(long.translations)]) {
      expect(text).toBe(`A${"a".repeat(97)}…`);
      expect(text.length).toBeLessThanOrEqual(100);
    }
    const fits = commandMenuOf([{ ...commands[3]!, summary: `${"a".repeat(97)}😀 and more` }], [], "telegram", new Translator("en")).everyone[0]!.description.text;
    expect(fits).toBe(`A${"a".repeat(96)}😀…`);
    expect(fits).toHaveLength(100);
  });
});
