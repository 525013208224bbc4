/** Which URLs the browser tools may open: http and https only (never file:, chrome:, view-source:, data: ...). */
export class BrowserRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BrowserRefusal";
  }
}

export function navigableUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BrowserRefusal(`"${raw}" is not a valid URL (include http:// or https://)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new BrowserRefusal(`The browser opens only http and https URLs, not ${url.protocol} (file:, chrome:, view-source: and data: are refused)`);
  }
  return url.href;
}
