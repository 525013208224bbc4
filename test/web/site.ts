/** A small local site for the web tools: an article, a button page, redirects, JSON, a binary; and a second server. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Site {
  url: (path: string) => string;
  port: number;
  hits: string[];
  /** Every request's headers and body, in order. */
  requests: Array<{ url: string; headers: Record<string, string | string[] | undefined>; body: string }>;
  close: () => Promise<void>;
}

export function articleHtml(paragraphs = 12): string {
  const body = Array.from({ length: paragraphs }, (_, i) => `<p>Paragraph ${i + 1} of the lighthouse story: the keeper climbed the stairs at dusk and lit the lamp, as every evening for forty years.</p>`).join("\n");
  return `<!doctype html><html><head><title>The Lighthouse Keeper</title><style>body{color:red}</style><script>var tracking = 1;</script></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a> | <a href="/shop">Shop</a></nav>
<article><h1>The Lighthouse Keeper</h1>${body}</article>
<footer>Copyright footer text</footer></body></html>`;
}

export type Routes = Record<string, (send: (status: number, type: string, body: string | Buffer, headers?: Record<string, string>) => void) => void>;

export async function startSite(routes: Routes): Promise<Site> {
  const hits: string[] = [];
  const requests: Site["requests"] = [];
  const server: Server = createServer(async (req, res) => {
    hits.push(req.url ?? "");
    let body = "";
    for await (const chunk of req) body += String(chunk);
    requests.push({ url: req.url ?? "", headers: req.headers, body });
    const route = routes[(req.url ?? "").split("?")[0]!];
    if (!route) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    route((status, type, body, headers = {}) => res.writeHead(status, { "content-type": type, ...headers }).end(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    port,
    hits,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
