const KEYS: [string, string][] = [
  ["1", ""],
  ["2", "ABC"],
  ["3", "DEF"],
  ["4", "GHI"],
  ["5", "JKL"],
  ["6", "MNO"],
  ["7", "PQRS"],
  ["8", "TUV"],
  ["9", "WXYZ"],
  ["*", ""],
  ["0", "+"],
  ["#", ""],
];

/** The twelve keys; each is a button named by its digit. */
export function Keypad({ onKey, label }: { onKey: (key: string) => void; label: string }) {
  return (
    <div class="keypad" role="group" aria-label={label}>
      {KEYS.map(([key, letters]) => (
        <button type="button" key={key} class="key" onClick={() => onKey(key)}>
          <span class="key-digit">{key}</span>
          <span class="key-letters" aria-hidden="true">
            {letters}
          </span>
        </button>
      ))}
    </div>
  );
}
