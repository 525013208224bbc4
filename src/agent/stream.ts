/**
 * Live text for a watched turn. generateText runs the turn's steps either way (tools, repair, retries, the messages
 * kept); when someone watches, each step's answer is streamed and the watcher is told what to show as it arrives:
 * the step's text as it grows, and a status line when the model calls a tool. A model made by createModel for an
 * OpenAI-compatible endpoint streams through its fetch (LiveCompletions); any other calls doStream, and the parts
 * are folded into the result generateText expects. streamText did the same through a dozen web streams per call,
 * ~1.1 ms of CPU more per model call on Node 20 (`npm run bench llm-call`).
 *
 * What is shown is redacted of secrets like the final reply, and a tail that could be the start of a secret is held
 * back until it is not.
 */
import { wrapLanguageModel, type LanguageModel } from "ai";
import { basename } from "node:path";
import type { Speech } from "../core/i18n.js";
import type { TurnEvent } from "../core/turn.js";
import { ENGLISH } from "../infra/i18n/index.js";
import { GrowingRedaction } from "./growing-redaction.js";
import { AnswerCutShort, ModelChain } from "./model-chain.js";
import { liveCompletionsOf, type GenerateResult, type ModelV3, type StreamResult } from "./wire/index.js";

type StreamPart = StreamResult["stream"] extends ReadableStream<infer P> ? P : never;
type Content = GenerateResult["content"][number];
type TextContent = Extract<Content, { type: "text" | "reasoning" }>;

const STATUS_LABEL_MAX = 60;

/**
 * `model` answering each step by streaming, showing it to `onEvent`; a model that cannot be wrapped as it is. A
 * chain of models is watched entry by entry (each keeps its live path), all shown as one: a step that fails after
 * its text was shown fails as AnswerCutShort: no other entry, and no retry, answers it again.
 */
export function watchedModel(model: LanguageModel, secrets: readonly string[], onEvent: (event: TurnEvent) => void, speech: Speech = ENGLISH): LanguageModel {
  if (typeof model === "string" || model.specificationVersion !== "v3") return model;
  const display = new StepDisplay(secrets, onEvent, speech);
  return model instanceof ModelChain ? model.map((entry) => watched(entry, display)) : watched(model, display);
}

function watched(model: ModelV3, display: StepDisplay): ModelV3 {
  const live = liveCompletionsOf(model);
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: "v3",
      wrapGenerate: async ({ doStream, params, model: inner }) => {
        display.startStep();
        try {
          if (live === undefined) return await collectStep(await doStream(), display, true);
          return await live.step(inner, params, (delta) => display.textDelta(delta), (replayed) => collectStep(replayed, display, false));
        } catch (err) {
          // A cancelled turn stays an AbortError, shown text or not.
          if (!display.showsText || params.abortSignal?.aborted) throw err;
          throw new AnswerCutShort(err);
        }
      },
    },
  });
}

/**
 * The step's parts gathered into a generate result, in the order they came; a stream's error is thrown. The text
 * is shown as it comes unless it was shown already (an answer LiveCompletions replays).
 */
async function collectStep(result: StreamResult, display: StepDisplay, showText: boolean): Promise<GenerateResult> {
  const content: Content[] = [];
  const open = new Map<string, TextContent>();
  let finish: Extract<StreamPart, { type: "finish" }> | undefined;
  let warnings: GenerateResult["warnings"] = [];
  let metadata: NonNullable<GenerateResult["response"]> = {};
  const start = (kind: TextContent["type"], id: string, providerMetadata: TextContent["providerMetadata"]): TextContent => {
    const started: TextContent = { type: kind, text: "", ...(providerMetadata ? { providerMetadata } : {}) };
    content.push(started);
    open.set(`${kind}:${id}`, started);
    return started;
  };
  for await (const part of result.stream) {
    switch (part.type) {
      case "stream-start":
        warnings = part.warnings;
        break;
      case "response-metadata": {
        const { type: _type, ...rest } = part;
        metadata = rest;
        break;
      }
      case "text-start":
      case "reasoning-start":
        start(part.type === "text-start" ? "text" : "reasoning", part.id, part.providerMetadata);
        break;
      case "text-delta":
      case "reasoning-delta": {
        const kind = part.type === "text-delta" ? "text" : "reasoning";
        // A delta without its start (a provider skipping it) opens the part rather than losing the text.
        const growing = open.get(`${kind}:${part.id}`) ?? start(kind, part.id, undefined);
        growing.text += part.delta;
        if (part.providerMetadata) growing.providerMetadata = part.providerMetadata;
        if (kind === "text" && showText) display.textDelta(part.delta);
        break;
      }
      case "text-end":
      case "reasoning-end": {
        const key = `${part.type === "text-end" ? "text" : "reasoning"}:${part.id}`;
        const ended = open.get(key);
        if (ended && part.providerMetadata) ended.providerMetadata = part.providerMetadata;
        open.delete(key);
        break;
      }
      case "tool-call":
        display.toolCalled(part.toolName, parsedInput(part.input));
        content.push(part);
        break;
      case "tool-result":
      case "tool-approval-request":
      case "file":
      case "source":
        content.push(part);
        break;
      case "finish":
        finish = part;
        break;
      case "error":
        throw part.error;
      default:
        // Tool input as it streams in and raw chunks: the finished tool call carries what counts.
        break;
    }
  }
  if (!finish) throw new Error("the model's stream ended without finishing the step");
  return {
    content,
    finishReason: finish.finishReason,
    usage: finish.usage,
    warnings,
    ...(finish.providerMetadata ? { providerMetadata: finish.providerMetadata } : {}),
    ...(result.request ? { request: result.request } : {}),
    response: { ...metadata, ...(result.response?.headers ? { headers: result.response.headers } : {}) },
  };
}

/** What the watcher sees of the current step: its text so far, redacted, or which tool runs. */
class StepDisplay {
  private readonly text: GrowingRedaction;
  private shown = "";

  constructor(
    secrets: readonly string[],
    private readonly onEvent: (event: TurnEvent) => void,
    private readonly speech: Speech,
  ) {
    this.text = new GrowingRedaction(secrets);
  }

  /** Whether some of the current step's text was shown. */
  get showsText(): boolean {
    return this.shown !== "";
  }

  startStep(): void {
    this.text.reset();
    this.show("");
  }

  textDelta(delta: string): void {
    this.show(this.text.append(delta));
  }

  toolCalled(toolName: string, input: unknown): void {
    this.onEvent({ type: "status", text: toolStatus(toolName, input, this.speech) });
  }

  private show(text: string): void {
    if (text === this.shown) return;
    const delta = text.startsWith(this.shown) ? text.slice(this.shown.length) : undefined;
    this.shown = text;
    this.onEvent({ type: "text", text, ...(delta !== undefined ? { delta } : {}) });
  }
}

/** A tool call's input as the model sent it (JSON text), or undefined when it is not JSON. */
function parsedInput(input: string): unknown {
  try {
    return JSON.parse(input) as unknown;
  } catch {
    return undefined;
  }
}

/** "Running tz.py..." for a skill script, "Running schedule_task..." for other tools. */
export function toolStatus(toolName: string, input: unknown, speech: Speech = ENGLISH): string {
  const script = (input as { script_name?: unknown } | null)?.script_name;
  const label = typeof script === "string" && script !== "" ? basename(script) : toolName;
  return speech.t("tools.running", { tool: label.slice(0, STATUS_LABEL_MAX) });
}
