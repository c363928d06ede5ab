/** Splits a header value on commas that are not inside quotes or angle brackets. */
export function splitTopLevel(value: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charAt(i);
    // Inside quotes a backslash escapes the next character (`"C:\\" <sip:…>` ends at its quote).
    if (quoted && c === "\\") i++;
    else if (c === '"') quoted = !quoted;
    else if (!quoted && c === "<") depth++;
    else if (!quoted && c === ">") depth = Math.max(0, depth - 1);
    else if (!quoted && depth === 0 && c === ",") {
      parts.push(value.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(value.slice(start).trim());
  return parts.filter((p) => p !== "");
}

/**
 * The header names of a raw SIP message as written, each once (the first spelling, compared
 * without regard to case), in order. The message was parsed already (sip.js refused it
 * otherwise): the request line is skipped, folded lines continue the header before them, and the
 * body after the first empty line is not read.
 */
export function headerNamesOf(raw: string): string[] {
  const names = new Map<string, string>();
  for (const line of raw.split(/\r?\n/).slice(1)) {
    if (line === "") break;
    if (/^[ \t]/.test(line)) continue;
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon).trim() : "";
    if (name && !names.has(name.toLowerCase())) names.set(name.toLowerCase(), name);
  }
  return [...names.values()];
}
