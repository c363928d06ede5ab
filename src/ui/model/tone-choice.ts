import type { Call } from "../../softphone";
import type { ToneName, ToneOutput } from "./tones";

/**
 * Which of the phone's own sounds the calls ask for, if any: a ringing call rings on the ringer,
 * or beeps softly in the headset while another call is up (call waiting); an outgoing call whose
 * far end rings without sending audio of its own gets a local ringback. A call the phone answers
 * by itself does not ring (it has its own cue).
 */
export function toneFor(live: readonly Call[]): [ToneName, ToneOutput] | undefined {
  const ringing = live.some((c) => c.direction === "inbound" && c.state === "ringing" && !c.autoAnswer);
  if (ringing) return live.some((c) => c.state !== "ringing") ? ["waiting", "speaker"] : ["ring", "ringer"];
  if (live.some((c) => c.direction === "outbound" && c.state === "early" && !c.progress?.earlyMedia))
    return ["ringback", "speaker"];
  return undefined;
}
