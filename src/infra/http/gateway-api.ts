/** Where the running gateway's API is, for the CLI commands that talk to it. */
export interface GatewayApi {
  /** The base URL, e.g. http://127.0.0.1:8080 */
  url: string;
  /** The bearer token (http.token), or null when the API is open. */
  token: string | null;
}

/** From the gateway's http settings: a wildcard host is reached on loopback. */
export function gatewayApiOf(http: { host: string; port: number; token: string | null }): GatewayApi {
  const host = http.host === "0.0.0.0" ? "127.0.0.1" : http.host === "::" ? "::1" : http.host;
  return { url: `http://${host.includes(":") ? `[${host}]` : host}:${http.port}`, token: http.token };
}
