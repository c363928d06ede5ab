/**
 * How the app is laid out, chosen by the page address (`?layout=bar|side|full`), else by the
 * layout setting:
 * - `bar`: one line, 48-56 px high, across the top of a CRM;
 * - `side`: a panel 320-400 px wide beside a CRM;
 * - `full`: the whole browser tab.
 */
export type Layout = "bar" | "side" | "full";

/** The layout the address asks for, else the one chosen in the settings. */
export function layoutFrom(search: string, fallback: Layout = "full"): Layout {
  const asked = new URLSearchParams(search).get("layout");
  return asked === "bar" || asked === "side" || asked === "full" ? asked : fallback;
}
