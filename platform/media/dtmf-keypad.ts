/** The DTMF keypad (ITU-T Q.23): each key is one row frequency plus one column frequency. */
export const DTMF_ROWS = [697, 770, 852, 941] as const;
export const DTMF_COLUMNS = [1209, 1336, 1477, 1633] as const;
const KEYS = ["123A", "456B", "789C", "*0#D"];

export type DtmfDigit = "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "*" | "#" | "A" | "B" | "C" | "D";

export function isDtmfDigit(value: string): value is DtmfDigit {
  return value.length === 1 && KEYS.some((row) => row.includes(value));
}

export function dtmfFrequencies(digit: DtmfDigit): [row: number, column: number] {
  const row = KEYS.findIndex((r) => r.includes(digit));
  const column = KEYS[row]!.indexOf(digit);
  return [DTMF_ROWS[row]!, DTMF_COLUMNS[column]!];
}

export function dtmfDigitAt(row: number, column: number): DtmfDigit {
  return KEYS[row]![column] as DtmfDigit;
}
