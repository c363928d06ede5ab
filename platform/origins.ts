/**
 * The web origins whose pages may use the platform: the app's own (the origin a request was
 * addressed to) and those configured (`allowedOrigins`, AGENTBAR_ALLOWED_ORIGINS). Only they get
 * CORS answers, open the WebSockets from a browser and send requests the session cookie carries.
 * Any other Origin, `null` included, gets none of it. (Who may frame the app is the embedding
 * allowlist's: `appConfig.frameAncestors`.)
 */
export class OriginPolicy {
  constructor(private readonly configured: () => readonly string[]) {}

  /**
   * Whether a browser page of `origin` may use the platform. `host` is the Host header the request
   * was sent to: a page of the platform's own address is the app itself.
   */
  trusts(origin: string, host: string | undefined): boolean {
    return this.configured().includes(origin) || isOwnOrigin(origin, host);
  }
}

/** Whether `origin` is the platform's own: the origin of the address (`host`) a request was sent to. */
export function isOwnOrigin(origin: string, host: string | undefined): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (
    (url.protocol === "http:" || url.protocol === "https:") &&
    url.origin === origin &&
    host !== undefined &&
    url.host === host.toLowerCase()
  );
}
