/**
 * The interactive set-up (@clack/prompts): the model and its key, tested live; the platforms, each with where its
 * credentials are and a live check; the owner, by a "/start" from the chat; in Chinese, whether the bot answers in
 * Chinese by default; then the files. Secrets are typed into masked prompts and never printed back. What the files
 * hold already is offered as the answer, so a second run edits. The checks' details are the doctor's, in English.
 */
import { once } from "node:events";
import type { Readable, Writable } from "node:stream";
import * as p from "@clack/prompts";
import { channelModules } from "../channels/modules.js";
import type { Config } from "../config.js";
import type { Translate } from "../core/i18n.js";
import { checkChannel, checkLlm, type CheckResult } from "../doctor.js";
import type { Locale } from "../core/locales.js";
import type { Logger } from "../infra/log.js";
import { candidateConfig, envChanges, redactedFor, settingChanges, SETUP_CHANNELS, type SetupAnswers } from "./answers.js";
import { readSetupFiles, writeSetupFiles, type SetupFiles } from "./files.js";
import { setupWords } from "./language.js";
import { OWNER_WAIT_MS, waitForOwner } from "./owner.js";
import { PROVIDERS, type ProviderChoice } from "./providers.js";

export interface WizardOptions {
  configPath?: string | undefined;
  input?: Readable;
  output?: Writable;
  log: Logger;
  /** The language it asks in (English when not given). */
  locale?: Locale;
}

/** `said`: the spinner showed that the set-up was cancelled already. */
class Cancelled extends Error {
  constructor(readonly said = false) {
    super("set-up cancelled");
  }
}

export async function runWizard(opts: WizardOptions): Promise<{ configPath: string; envPath: string } | null> {
  const locale = opts.locale ?? "en";
  const t = setupWords(locale);
  const io: Io = { input: opts.input, output: opts.output };
  const ask: Ask = async (prompt) => {
    const answer = await prompt;
    if (p.isCancel(answer)) throw new Cancelled();
    return answer as never;
  };
  const files = readSetupFiles(opts.configPath, t);
  const terminal = (opts.output ?? process.stdout) as Writable & { isTTY?: boolean; columns?: number; rows?: number };
  // A terminal that reports no size (a pseudo-terminal nobody sized): clack would wrap at every character and
  // show one choice of a list. It gets the classic 80 x 24.
  if (terminal.isTTY && !terminal.columns) Object.assign(terminal, { columns: 80, rows: 24 });
  p.intro(t("setup.intro"), io);
  try {
    const answers = await askModel(files, ask, io, t);
    await askPlatforms(files, answers, ask, io, t);
    await askOwner(files, answers, ask, io, t, opts.log);
    await askDefaultLanguage(files, answers, ask, io, t, locale);
    await writeSetupFiles(files, settingChanges(answers), envChanges(answers));
    p.outro(t("setup.wrote", { config: files.configPath, env: files.envPath }), io);
    return { configPath: files.configPath, envPath: files.envPath };
  } catch (err) {
    if (!(err instanceof Cancelled)) throw err;
    if (!err.said) p.cancel(t("setup.cancelled"), io);
    return null;
  }
}

type Ask = <T>(prompt: Promise<T | symbol>) => Promise<Exclude<T, symbol>>;
type Io = { input?: Readable | undefined; output?: Writable | undefined };

async function askModel(files: SetupFiles, ask: Ask, io: Io, t: Translate): Promise<SetupAnswers> {
  const current = { baseUrl: files.config.getIn(["llm", "baseUrl"]) as string | undefined, model: files.config.getIn(["llm", "model"]) as string | undefined };
  const known = PROVIDERS.find((choice) => choice.baseUrl !== null && choice.baseUrl === current.baseUrl);
  let defaults = { provider: known ?? (current.baseUrl ? PROVIDERS.at(-1)! : PROVIDERS[0]!), baseUrl: current.baseUrl, model: current.model };
  for (;;) {
    const chosen = await ask<ProviderChoice>(
      p.select({
        ...io,
        message: t("setup.model.provider") + t("setup.listKeys"),
        showInstructions: clackKeys(t),
        initialValue: defaults.provider,
        options: PROVIDERS.map((choice) => ({ value: choice, label: t(`setup.providers.${choice.id}`), hint: choice.baseUrl ?? "" })),
      }),
    );
    const baseUrl =
      chosen.baseUrl ??
      (await ask(
        p.text({ ...io, message: t("setup.model.baseUrl"), initialValue: defaults.baseUrl ?? "", validate: (v) => (/^https?:\/\/\S+$/.test(v ?? "") ? undefined : t("setup.model.baseUrlInvalid")) }),
      ));
    const sameProvider = chosen.id === defaults.provider.id;
    const model = await ask(
      p.text({ ...io, message: t("setup.model.name"), initialValue: (sameProvider ? defaults.model : undefined) ?? chosen.model, validate: (v) => (v ? undefined : t("setup.model.nameRequired")) }),
    );
    const hasKey = files.env.LLM_API_KEY !== undefined;
    const typed = await ask(p.password({ ...io, message: t(hasKey ? "setup.model.keyKeep" : "setup.model.keyNone") }));
    const answers: SetupAnswers = { provider: chosen, baseUrl, model, llmKey: typed === "" && hasKey ? undefined : typed, channels: new Map() };
    const config = candidateConfig(files, answers);
    if (await passes(config, t("setup.model.checking"), () => checkLlm(config), ask, io, t)) return answers;
    defaults = { provider: chosen, baseUrl, model };
  }
}

async function askPlatforms(files: SetupFiles, answers: SetupAnswers, ask: Ask, io: Io, t: Translate): Promise<void> {
  const configured = SETUP_CHANNELS.filter((module) => module.credentials.every(({ env }) => files.env[env] !== undefined)).map((m) => m.name);
  const chosen = await ask(
    p.multiselect({ ...io, message: t("setup.platforms.pick"), showInstructions: clackKeys(t), required: false, initialValues: configured, options: SETUP_CHANNELS.map((m) => ({ value: m.name, label: m.name })) }),
  );
  for (const name of chosen) {
    const module = channelModules.find((m) => m.name === name)!;
    p.note(t(`setup.guides.${name}`), t("setup.platforms.guideTitle", { channel: name }), io);
    for (;;) {
      const values: Record<string, string> = {};
      for (const { env } of module.credentials) {
        const has = files.env[env] !== undefined;
        const message = has ? t("setup.platforms.keep", { variable: env }) : env;
        const typed = await ask(p.password({ ...io, message, validate: (v) => (v || has ? undefined : t("setup.platforms.required")) }));
        if (typed !== "") values[env] = typed;
      }
      answers.channels.set(name, values);
      const config = candidateConfig(files, answers);
      if (await passes(config, t("setup.platforms.checking", { channel: name }), async () => [await checkChannel(config, module)], ask, io, t)) break;
    }
  }
}

async function askOwner(files: SetupFiles, answers: SetupAnswers, ask: Ask, io: Io, t: Translate, log: Logger): Promise<void> {
  const owners = (files.config.getIn(["access", "owners"]) as { toJSON(): string[] } | undefined)?.toJSON() ?? [];
  const platforms = [...answers.channels.keys()];
  if (platforms.length === 0) return;
  const choice = await ask(
    p.select({
      ...io,
      message: (owners.length > 0 ? t("setup.owner.current", { owners: owners.join(", ") }) : t("setup.owner.ask")) + t("setup.listKeys"),
      showInstructions: clackKeys(t),
      options: [
        ...platforms.map((name) => ({ value: name, label: t("setup.owner.from", { channel: name }) })),
        { value: "", label: t(owners.length > 0 ? "setup.owner.keep" : "setup.owner.later") },
      ],
    }),
  );
  if (choice === "") return;
  const module = channelModules.find((m) => m.name === choice)!;
  const waiting = t("setup.owner.waiting", { channel: choice, minutes: OWNER_WAIT_MS / 60_000 });
  const { value: found, spin } = await spinning(io, t, waiting, (cancel) =>
    waitForOwner(candidateConfig(files, answers), module, t, log, AbortSignal.any([cancel, AbortSignal.timeout(OWNER_WAIT_MS)])).then(
      (id) => ({ id }),
      (err: unknown) => ({ error: err as Error }),
    ),
  );
  if ("error" in found) spin.error(t("setup.owner.notSet", { reason: found.error.message }));
  else if (found.id === null) spin.stop(t("setup.owner.webhook", { channel: choice }));
  else {
    answers.owners = [...owners.filter((o) => o !== `${choice}:${found.id}`), `${choice}:${found.id}`];
    spin.stop(t("setup.owner.set", { owner: `${choice}:${found.id}` }));
  }
}

/** In Chinese, with no `i18n.default` yet: whether the bot answers people in Chinese when nothing tells their language. */
async function askDefaultLanguage(files: SetupFiles, answers: SetupAnswers, ask: Ask, io: Io, t: Translate, locale: Locale): Promise<void> {
  if (locale !== "zh-Hans" || files.config.hasIn(["i18n", "default"])) return;
  if (await ask(confirm(io, t, t("setup.language.offer")))) answers.defaultLocale = "zh-Hans";
}

/**
 * Whether clack's own key hints go under a list: they are English only, so a language whose catalog has its own
 * (`setup.listKeys`) puts those in the question instead.
 */
function clackKeys(t: Translate): boolean {
  return t("setup.listKeys") === "";
}

/** A yes-or-no question, its answers in the set-up's language; Enter says yes. */
function confirm(io: Io, t: Translate, message: string): Promise<boolean | symbol> {
  return p.confirm({ ...io, message, active: t("setup.yes"), inactive: t("setup.no"), initialValue: true });
}

/**
 * `work` under a spinner, given a signal that aborts when the spinner is cancelled (SIGINT, SIGTERM), which then
 * cancels the set-up. On a terminal the spinner itself reads the keys and ends the process on Ctrl-C or Escape with
 * exit code 0, past any handler of ours (bombshell-dev/clack#573): as nothing is written before the end, that exit
 * only needs an interruption's code.
 */
async function spinning<T>(io: Io, t: Translate, message: string, work: (cancel: AbortSignal) => Promise<T>): Promise<{ value: T; spin: p.SpinnerResult }> {
  const cancel = new AbortController();
  const spin = p.spinner({ ...io, cancelMessage: t("setup.cancelled"), onCancel: () => cancel.abort() });
  const interrupted = () => {
    process.exitCode = 130;
  };
  process.on("exit", interrupted);
  spin.start(message);
  try {
    const value = await Promise.race([work(cancel.signal), once(cancel.signal, "abort")]);
    if (cancel.signal.aborted) throw new Cancelled(true);
    return { value: value as T, spin };
  } catch (err) {
    if (!(err instanceof Cancelled)) spin.clear();
    throw err;
  } finally {
    process.off("exit", interrupted);
  }
}

/** Runs a live check under a spinner; on failure says why and asks whether to try again (false) or keep it (true). */
async function passes(config: Config, what: string, check: () => Promise<readonly CheckResult[]>, ask: Ask, io: Io, t: Translate): Promise<boolean> {
  const { value: results, spin } = await spinning(io, t, what, check);
  const failed = results.filter((result) => !result.ok);
  if (failed.length === 0) {
    spin.stop(t("setup.check.ok", { detail: results.map((result) => redactedFor(config, result.detail)).join("; ") }));
    return true;
  }
  spin.error(t("setup.check.failed", { detail: failed.map((result) => redactedFor(config, result.detail)).join("; ") }));
  for (const result of failed) if (result.fix) p.log.info(t("setup.check.fix", { fix: result.fix }), io);
  return !(await ask(confirm(io, t, t("setup.check.retry"))));
}
