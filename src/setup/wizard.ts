/**
 * The interactive set-up (@clack/prompts): the model and its key, tested live; the platforms, each with where its
 * credentials are and a live check; the owner, by a "/start" from the chat; then the files. Secrets are typed into
 * masked prompts and never printed back. What the files hold already is offered as the answer, so a second run edits.
 */
import { once } from "node:events";
import type { Readable, Writable } from "node:stream";
import * as p from "@clack/prompts";
import { channelModules } from "../channels/modules.js";
import type { Config } from "../config.js";
import { checkChannel, checkLlm, type CheckResult } from "../doctor.js";
import type { Logger } from "../infra/log.js";
import { candidateConfig, envChanges, redactedFor, settingChanges, SETUP_CHANNELS, type SetupAnswers } from "./answers.js";
import { readSetupFiles, writeSetupFiles, type SetupFiles } from "./files.js";
import { CREDENTIAL_GUIDES } from "./guides.js";
import { OWNER_WAIT_MS, waitForOwner } from "./owner.js";
import { PROVIDERS, type ProviderChoice } from "./providers.js";

export interface WizardOptions {
  configPath?: string | undefined;
  input?: Readable;
  output?: Writable;
  log: Logger;
}

const CANCELLED = "Set-up cancelled; nothing was written.";

/** `said`: the spinner showed CANCELLED already. */
class Cancelled extends Error {
  constructor(readonly said = false) {
    super(CANCELLED);
  }
}

export async function runWizard(opts: WizardOptions): Promise<{ configPath: string; envPath: string } | null> {
  const io = { input: opts.input, output: opts.output };
  const ask: Ask = async (prompt) => {
    const answer = await prompt;
    if (p.isCancel(answer)) throw new Cancelled();
    return answer as never;
  };
  const files = readSetupFiles(opts.configPath);
  const terminal = (opts.output ?? process.stdout) as Writable & { isTTY?: boolean; columns?: number; rows?: number };
  // A terminal that reports no size (a pseudo-terminal nobody sized): clack would wrap at every character and
  // show one choice of a list. It gets the classic 80 x 24.
  if (terminal.isTTY && !terminal.columns) Object.assign(terminal, { columns: 80, rows: 24 });
  p.intro("switchboard setup", io);
  try {
    const answers = await askModel(files, ask, io);
    await askPlatforms(files, answers, ask, io);
    await askOwner(files, answers, ask, io, opts.log);
    await writeSetupFiles(files, settingChanges(answers), envChanges(answers));
    p.outro(`Wrote ${files.configPath} and ${files.envPath} (mode 0600). Start with: npx switchboard start`, io);
    return { configPath: files.configPath, envPath: files.envPath };
  } catch (err) {
    if (!(err instanceof Cancelled)) throw err;
    if (!err.said) p.cancel(CANCELLED, io);
    return null;
  }
}

type Ask = <T>(prompt: Promise<T | symbol>) => Promise<Exclude<T, symbol>>;
type Io = { input?: Readable | undefined; output?: Writable | undefined };

async function askModel(files: SetupFiles, ask: Ask, io: Io): Promise<SetupAnswers> {
  const current = { baseUrl: files.config.getIn(["llm", "baseUrl"]) as string | undefined, model: files.config.getIn(["llm", "model"]) as string | undefined };
  const known = PROVIDERS.find((choice) => choice.baseUrl !== null && choice.baseUrl === current.baseUrl);
  let defaults = { provider: known ?? (current.baseUrl ? PROVIDERS.at(-1)! : PROVIDERS[0]!), baseUrl: current.baseUrl, model: current.model };
  for (;;) {
    const chosen = await ask<ProviderChoice>(
      p.select({ ...io, message: "Model provider", initialValue: defaults.provider, options: PROVIDERS.map((choice) => ({ value: choice, label: choice.label, hint: choice.baseUrl ?? "" })) }),
    );
    const baseUrl =
      chosen.baseUrl ??
      (await ask(p.text({ ...io, message: "Base URL of the OpenAI-compatible API", initialValue: defaults.baseUrl ?? "", validate: (v) => (/^https?:\/\/\S+$/.test(v ?? "") ? undefined : "an http(s):// URL") })));
    const sameProvider = chosen.id === defaults.provider.id;
    const model = await ask(p.text({ ...io, message: "Model", initialValue: (sameProvider ? defaults.model : undefined) ?? chosen.model, validate: (v) => (v ? undefined : "a model name") }));
    const hasKey = files.env.LLM_API_KEY !== undefined;
    const typed = await ask(p.password({ ...io, message: hasKey ? "API key (Enter keeps the one in .env)" : "API key (Enter for none)" }));
    const answers: SetupAnswers = { provider: chosen, baseUrl, model, llmKey: typed === "" && hasKey ? undefined : typed, channels: new Map() };
    const config = candidateConfig(files, answers);
    if (await passes(config, "Calling the model", () => checkLlm(config), ask, io)) return answers;
    defaults = { provider: chosen, baseUrl, model };
  }
}

async function askPlatforms(files: SetupFiles, answers: SetupAnswers, ask: Ask, io: Io): Promise<void> {
  const configured = SETUP_CHANNELS.filter((module) => module.credentials.every(({ env }) => files.env[env] !== undefined)).map((m) => m.name);
  const chosen = await ask(
    p.multiselect({ ...io, message: "Platforms (space to pick, Enter when done; WebChat is always on)", required: false, initialValues: configured, options: SETUP_CHANNELS.map((m) => ({ value: m.name, label: m.name })) }),
  );
  for (const name of chosen) {
    const module = channelModules.find((m) => m.name === name)!;
    p.note(CREDENTIAL_GUIDES[name] ?? module.fix, `${name}: where the credentials are`, io);
    for (;;) {
      const values: Record<string, string> = {};
      for (const { env } of module.credentials) {
        const has = files.env[env] !== undefined;
        const typed = await ask(p.password({ ...io, message: has ? `${env} (Enter keeps the one in .env)` : env, validate: (v) => (v || has ? undefined : "required") }));
        if (typed !== "") values[env] = typed;
      }
      answers.channels.set(name, values);
      const config = candidateConfig(files, answers);
      if (await passes(config, `Checking ${name}`, async () => [await checkChannel(config, module)], ask, io)) break;
    }
  }
}

async function askOwner(files: SetupFiles, answers: SetupAnswers, ask: Ask, io: Io, log: Logger): Promise<void> {
  const owners = (files.config.getIn(["access", "owners"]) as { toJSON(): string[] } | undefined)?.toJSON() ?? [];
  const platforms = [...answers.channels.keys()];
  if (platforms.length === 0) return;
  const choice = await ask(
    p.select({
      ...io,
      message: owners.length > 0 ? `Owner: ${owners.join(", ")}. Pair another from a chat?` : "Who owns the bot? Pair yourself from a chat",
      options: [...platforms.map((name) => ({ value: name, label: `from ${name}` })), { value: "", label: owners.length > 0 ? "keep" : "later (switchboard pairing)" }],
    }),
  );
  if (choice === "") return;
  const module = channelModules.find((m) => m.name === choice)!;
  const waiting = `Send /start to your bot on ${choice} now, in a direct chat (waiting up to ${OWNER_WAIT_MS / 60_000} minutes)`;
  const { value: found, spin } = await spinning(io, waiting, (cancel) =>
    waitForOwner(candidateConfig(files, answers), module, log, AbortSignal.any([cancel, AbortSignal.timeout(OWNER_WAIT_MS)])).then(
      (id) => ({ id }),
      (err: unknown) => ({ error: err as Error }),
    ),
  );
  if ("error" in found) spin.error(`No owner set: ${found.error.message}`);
  else if (found.id === null) spin.stop(`${choice} receives through webhooks: approve yourself after the start with switchboard pairing approve`);
  else {
    answers.owners = [...owners.filter((o) => o !== `${choice}:${found.id}`), `${choice}:${found.id}`];
    spin.stop(`Owner: ${choice}:${found.id}`);
  }
}

/**
 * `work` under a spinner, given a signal that aborts when the spinner is cancelled (SIGINT, SIGTERM), which then
 * cancels the set-up. On a terminal the spinner itself reads the keys and ends the process on Ctrl-C or Escape with
 * exit code 0, past any handler of ours (bombshell-dev/clack#573): as nothing is written before the end, that exit
 * only needs an interruption's code.
 */
async function spinning<T>(io: Io, message: string, work: (cancel: AbortSignal) => Promise<T>): Promise<{ value: T; spin: p.SpinnerResult }> {
  const cancel = new AbortController();
  const spin = p.spinner({ ...io, cancelMessage: CANCELLED, onCancel: () => cancel.abort() });
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
async function passes(config: Config, what: string, check: () => Promise<readonly CheckResult[]>, ask: Ask, io: Io): Promise<boolean> {
  const { value: results, spin } = await spinning(io, what, check);
  const failed = results.filter((result) => !result.ok);
  if (failed.length === 0) {
    spin.stop(`OK: ${results.map((result) => redactedFor(config, result.detail)).join("; ")}`);
    return true;
  }
  spin.error(`FAILED: ${failed.map((result) => redactedFor(config, result.detail)).join("; ")}`);
  for (const result of failed) if (result.fix) p.log.info(`fix: ${result.fix}`, io);
  return !(await ask(p.confirm({ ...io, message: "Try again?", initialValue: true })));
}
