/** Whether the HTTP port is free, asked before anything else starts, so a port in use fails fast and says so. */
import { createServer } from "node:net";

export async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", (err: NodeJS.ErrnoException) => {
      const why = err.code === "EADDRINUSE" ? "the port is in use (another gateway, or another program)" : err.message;
      reject(new Error(`Cannot listen on ${host}:${port}: ${why}. Set http.port (SWITCHBOARD_PORT) to a free port.`, { cause: err }));
    });
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}
