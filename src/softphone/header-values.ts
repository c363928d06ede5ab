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
