/**
 * A fake OpenAI-compatible embeddings endpoint: real HTTP on 127.0.0.1, POST /v1/embeddings. Vectors are made
 * from "concepts" the test names (each a list of words meaning the same thing), so texts that share no word can
 * still be close in meaning: one dimension per concept, 1 when the text mentions any of its words.
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeEmbeddings {
  /** Base URL ending in /v1. */
  url: string;
  /** The inputs of every request, in order. */
  inputs: string[][];
  /** Answer every request with this HTTP status (an error body) until set back to null. */
  failWith(status: number | null): void;
  close(): Promise<void>;
}

export async function startFakeEmbeddings(concepts: readonly (readonly string[])[]): Promise<FakeEmbeddings> {
  const inputs: string[][] = [];
  let failure: number | null = null;
  const vectorOf = (text: string): number[] => {
    const lower = text.toLowerCase();
    // The last dimension keeps unrelated texts from being zero vectors.
    return [...concepts.map((words) => (words.some((w) => lower.includes(w)) ? 1 : 0)), 0.1];
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (req.method !== "POST" || req.url !== "/v1/embeddings") return send(404, { error: { message: "no such route" } });
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { model: string; input: string | string[] };
      const input = Array.isArray(body.input) ? body.input : [body.input];
      inputs.push(input);
      if (failure !== null) return send(failure, { error: { message: "fake-embeddings: failing on purpose" } });
      send(200, {
        object: "list",
        model: body.model,
        data: input.map((text, index) => ({ object: "embedding", index, embedding: vectorOf(text) })),
        usage: { prompt_tokens: input.join(" ").length, total_tokens: input.join(" ").length },
      });
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    inputs,
    failWith: (status) => void (failure = status),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
