/**
 * What a supervisor's leg does on an agent's call, in one vocabulary for the app and the local
 * platform alike (the words of the supervisor's panel; the spec names `ccMonitor`):
 * - `monitor`: hears the agent and the customer, heard by nobody;
 * - `whisper`: heard by the agent only;
 * - `whisper-customer`: heard by the customer (the agent's partner) only;
 * - `barge`: heard by both (ccThreeWay's party joins so too).
 *
 * Other words for the same modes stay at the two wires that carry them, each mapped here once:
 * the keys of FreeSWITCH's eavesdrop that a supervisor's phone presses to switch (`EAVESDROP_KEYS`),
 * and the words of the platform's `agent-supervision` event and of agent_state's `supervision.mode`
 * (`listen`, `whisper`, `whisper-partner`, `three-way`; docs/platform-contract.md).
 */
export type SupervisionMode = "monitor" | "whisper" | "whisper-customer" | "barge";

/**
 * The key of FreeSWITCH's eavesdrop that puts a listening leg in each mode: `2` speaks to the
 * monitored channel (the agent), `1` to its partner (the customer), `3` to both, `0` listens again.
 */
export const EAVESDROP_KEYS: Readonly<Record<SupervisionMode, string>> = {
  monitor: "0",
  whisper: "2",
  "whisper-customer": "1",
  barge: "3",
};

/** The mode an eavesdrop key pressed on a listening leg asks for; undefined for any other key. */
export function supervisionModeOfKey(key: string): SupervisionMode | undefined {
  return modeOf(EAVESDROP_KEYS, key);
}

/** The platform's word for each mode in its `agent-supervision` event and agent_state record. */
const WORDS = {
  monitor: "listen",
  whisper: "whisper",
  "whisper-customer": "whisper-partner",
  barge: "three-way",
} as const satisfies Record<SupervisionMode, string>;

export type SupervisionWord = (typeof WORDS)[SupervisionMode];

/** The platform's word for a mode, as its event and agent_state record say it. */
export function supervisionWordOf(mode: SupervisionMode): SupervisionWord {
  return WORDS[mode];
}

/** The mode a word of the platform's event or agent_state record names; undefined for a word it does not use. */
export function supervisionModeOfWord(word: string): SupervisionMode | undefined {
  return modeOf(WORDS, word);
}

function modeOf(table: Readonly<Record<SupervisionMode, string>>, value: string): SupervisionMode | undefined {
  return (Object.keys(table) as SupervisionMode[]).find((mode) => table[mode] === value);
}
