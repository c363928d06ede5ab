/**
 * The numbers of the simulated outside world (documented in docs/platform-contract.md).
 *
 * | Number        | The party                                                        |
 * |---------------|------------------------------------------------------------------|
 * | 5551FFFF      | rings ~1 s, answers, plays a tone of FFFF Hz (0000: silence)      |
 * | 5552xxxx      | busy (486, USER_BUSY)                                            |
 * | 5553xxxx      | rings and never answers (the caller's timeout: NO_ANSWER)         |
 * | 5554xxxx      | rings ~1 s, then rejects (603, CALL_REJECTED)                    |
 * | 5555xxxx      | rings ~1 s, answers and echoes what it hears                     |
 * | other 7+ digits (optionally +) | rings ~1 s, answers, plays 600 Hz               |
 */
export type SimBehaviour =
  | { kind: "answer"; frequency: number }
  | { kind: "busy" }
  | { kind: "no-answer" }
  | { kind: "reject" }
  | { kind: "echo" };

/** The tone of a simulated party whose number does not choose one. */
export const DEFAULT_SIM_FREQUENCY = 600;

export function simBehaviourOf(number: string): SimBehaviour | undefined {
  const m = /^5551(\d{4})$/.exec(number);
  if (m) return { kind: "answer", frequency: Number(m[1]) };
  if (/^5552\d{4}$/.test(number)) return { kind: "busy" };
  if (/^5553\d{4}$/.test(number)) return { kind: "no-answer" };
  if (/^5554\d{4}$/.test(number)) return { kind: "reject" };
  if (/^5555\d{4}$/.test(number)) return { kind: "echo" };
  if (/^\+?\d{7,}$/.test(number)) return { kind: "answer", frequency: DEFAULT_SIM_FREQUENCY };
  return undefined;
}
