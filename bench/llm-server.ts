/** The fake OpenAI-compatible server in a process of its own, so a bench's process measures only the client side. */
import { startFakeOpenAI } from "../test/fakes/openai-server.js";

const fake = await startFakeOpenAI({ record: false });
fake.respondWith(() => ({ text: "Here is a short answer to your question." }));
process.send?.(fake.url);
process.on("disconnect", () => void fake.close().finally(() => process.exit(0)));
