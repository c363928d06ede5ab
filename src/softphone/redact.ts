/**
 * Redaction of secrets from text that leaves the browser in a diagnostics bundle: SIP messages
 * (and the JSON or form bodies some carry), so that what IT staff receive shows what went wrong
 * without what would let anyone sign in as the user.
 */

export const REDACTED = "[redacted]";

/** Digest parameters that name things and help diagnose a refusal; every other one goes (response, cnonce, nonce, opaque...). */
const KEPT_AUTH_PARAMS = new Set(["username", "realm", "uri", "algorithm", "qop", "stale", "nc"]);

/** Header names whose value is credentials: the scheme and naming parameters stay, nothing else. */
const AUTH_HEADER =
  /^(authorization|proxy-authorization|www-authenticate|proxy-authenticate|authentication-info|proxy-authentication-info)$/i;

/** Any other header, URI parameter, JSON key or form field whose name says it holds a secret. */
const SECRET_NAME =
  /(pass(word|wd)?|secret|token|sessid|api[-_]?key|auth[-_]?id|authori[sz]ation|credential|cookie|bearer)/i;

/** Redacts credentials in one SIP message (request or response, with its body). */
export function redactSipMessage(message: string): string {
  const split = message.search(/\r?\n\r?\n/);
  const head = split < 0 ? message : message.slice(0, split);
  const body = split < 0 ? "" : message.slice(split);
  const lines = head.split(/\r?\n/);
  const eol = head.includes("\r\n") ? "\r\n" : "\n";
  const out = lines.map((line, index) => {
    if (index === 0) return redactUriParams(line);
    const m = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+)(\s*:\s*)(.*)$/.exec(line);
    if (!m) return line;
    const [, name, colon, value] = m as unknown as [string, string, string, string];
    if (AUTH_HEADER.test(name)) return `${name}${colon}${redactAuthValue(value)}`;
    if (SECRET_NAME.test(name) || /^(bearer|basic)\s/i.test(value)) return `${name}${colon}${REDACTED}`;
    return `${name}${colon}${redactUriParams(value)}`;
  });
  return out.join(eol) + redactBody(body);
}

/**
 * An Authorization-like value: `Digest username="1001", realm="x", response="…"` keeps its
 * scheme and naming parameters; `Bearer <token>` and any other scheme keep only the scheme.
 */
export function redactAuthValue(value: string): string {
  // Authentication-Info has parameters only, no scheme.
  const m = /^\s*[A-Za-z0-9_-]+\s*=/.test(value) ? ["", "", value] : /^\s*(\S+)\s*(.*)$/s.exec(value);
  if (!m) return REDACTED;
  const scheme = m[1]!;
  const rest = m[2]!;
  if (!/=/.test(rest)) return rest ? `${scheme} ${REDACTED}` : scheme;
  const params = [...rest.matchAll(/([A-Za-z0-9_-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^,\s]*)/g)].map(([, key, val]) =>
    KEPT_AUTH_PARAMS.has(key!.toLowerCase())
      ? `${key}=${val}`
      : `${key}=${val!.startsWith('"') ? `"${REDACTED}"` : REDACTED}`,
  );
  return scheme ? `${scheme} ${params.join(", ")}` : params.join(", ");
}

/** `;token=abc` and `?password=abc&x=1` in URIs lose their values. */
function redactUriParams(text: string): string {
  return text.replace(/([;?&])([A-Za-z0-9_.-]+)=([^;?&>\s,"]*)/g, (all, sep: string, key: string) =>
    SECRET_NAME.test(key) ? `${sep}${key}=${REDACTED}` : all,
  );
}

/** Bodies: JSON keys and form fields that name secrets, SDP's ICE password and SDES keys. */
export function redactBody(body: string): string {
  return body
    .replace(
      /("([^"\\]*)"\s*:\s*)("(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)/g,
      (all, lead: string, key: string) => (SECRET_NAME.test(key) ? `${lead}"${REDACTED}"` : all),
    )
    .replace(/(^|[\s&?])([A-Za-z0-9_.-]+)=([^&\s]*)/g, (all, lead: string, key: string) =>
      SECRET_NAME.test(key) ? `${lead}${key}=${REDACTED}` : all,
    )
    .replace(/^(a=ice-pwd:).*$/gm, `$1${REDACTED}`)
    .replace(/(inline:)[^\s|]+/g, `$1${REDACTED}`);
}

/** Replaces every occurrence of the given secret values (tokens, passwords known to the app) anywhere in the text. */
export function redactKnownSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longest first, so that a secret containing another is not left half-replaced.
  for (const secret of [...new Set(secrets)].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length)) {
    out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** A URL without credentials: no user:password part, secret-named query parameters emptied. */
export function redactUrl(url: string): string {
  return redactUriParams(url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, `$1${REDACTED}@`));
}

/** A copy of plain data (JSON-like) with every known secret value replaced in every string. */
export function scrubSecrets<T>(value: T, secrets: ReadonlyArray<string | undefined>): T {
  const known = secrets.filter((s): s is string => !!s && s.length >= 4);
  if (!known.length) return value;
  return JSON.parse(
    redactKnownSecrets(
      JSON.stringify(value),
      known.map((s) => JSON.stringify(s).slice(1, -1)),
    ),
  ) as T;
}
