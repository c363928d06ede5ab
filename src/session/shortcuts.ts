/**
 * Keyboard shortcuts as the settings keep them: "Alt+A", "Ctrl+Shift+H", "F8". At least one
 * modifier is required for letters, digits and symbols, so that typing in a field never fires
 * one; function keys may stand alone.
 */
export interface Shortcut {
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
  meta: boolean;
  /** `KeyboardEvent.code`-like key name: "KeyA", "Digit1", "F8", "Space"... */
  code: string;
}

const MODIFIERS = ["Ctrl", "Alt", "Shift", "Meta"] as const;

function codeOf(key: string): string | undefined {
  if (/^[A-Z]$/i.test(key)) return `Key${key.toUpperCase()}`;
  if (/^[0-9]$/.test(key)) return `Digit${key}`;
  if (/^F([1-9]|1[0-9]|2[0-4])$/i.test(key)) return key.toUpperCase();
  const named: Record<string, string> = {
    space: "Space",
    enter: "Enter",
    escape: "Escape",
    esc: "Escape",
    home: "Home",
    end: "End",
    pageup: "PageUp",
    pagedown: "PageDown",
    insert: "Insert",
  };
  return named[key.toLowerCase()];
}

export function parseShortcut(text: string): Shortcut | undefined {
  const parts = text.split("+").map((p) => p.trim());
  const key = parts.pop();
  if (!key) return undefined;
  const mods = new Set<string>();
  for (const p of parts) {
    const m = MODIFIERS.find(
      (x) => x.toLowerCase() === p.toLowerCase() || (x === "Ctrl" && p.toLowerCase() === "control"),
    );
    if (!m || mods.has(m)) return undefined;
    mods.add(m);
  }
  const code = codeOf(key);
  if (!code) return undefined;
  const shortcut: Shortcut = {
    ctrl: mods.has("Ctrl"),
    alt: mods.has("Alt"),
    shift: mods.has("Shift"),
    meta: mods.has("Meta"),
    code,
  };
  const needsModifier = !/^F\d+$/.test(code);
  if (needsModifier && !shortcut.ctrl && !shortcut.alt && !shortcut.meta) return undefined;
  return shortcut;
}

export function formatShortcut(s: Shortcut): string {
  const key = s.code.replace(/^Key|^Digit/, "");
  return [s.ctrl && "Ctrl", s.alt && "Alt", s.shift && "Shift", s.meta && "Meta", key].filter(Boolean).join("+");
}

/** The parts of a keyboard event a shortcut is matched on. */
export interface KeyLike {
  code: string;
  ctrlKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  metaKey: boolean;
}

export function matchesShortcut(s: Shortcut, e: KeyLike): boolean {
  return (
    e.code === s.code && e.ctrlKey === s.ctrl && e.altKey === s.alt && e.shiftKey === s.shift && e.metaKey === s.meta
  );
}

/** The shortcut a key press makes, for "press the keys" fields; undefined while only modifiers are down or without a modifier. */
export function shortcutFromEvent(e: KeyLike): string | undefined {
  if (/^(Control|Alt|Shift|Meta|OS)(Left|Right)?$/.test(e.code)) return undefined;
  const s: Shortcut = { ctrl: e.ctrlKey, alt: e.altKey, shift: e.shiftKey, meta: e.metaKey, code: e.code };
  const text = formatShortcut(s);
  return parseShortcut(text) ? text : undefined;
}
