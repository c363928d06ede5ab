import { describe, expect, it } from "vitest";
import { testCall } from "../../softphone/testing/test-call";
import { toneFor } from "./tone-choice";

const call = testCall;

describe("the phone's own sounds", () => {
  it("rings on the ringer, beeps in the headset for call waiting, and plays ringback only without early media", () => {
    expect(toneFor([call({})])).toEqual(["ring", "ringer"]);
    expect(toneFor([call({ id: "a", state: "active" }), call({ id: "b" })])).toEqual(["waiting", "speaker"]);
    expect(
      toneFor([
        call({
          direction: "outbound",
          state: "early",
          progress: { status: 180, reasonPhrase: "Ringing", earlyMedia: false },
        }),
      ]),
    ).toEqual(["ringback", "speaker"]);
    expect(
      toneFor([
        call({ direction: "outbound", state: "early", progress: { status: 183, reasonPhrase: "", earlyMedia: true } }),
      ]),
    ).toBeUndefined();
    expect(toneFor([call({ autoAnswer: { decidedBy: "policy", afterSec: 0, answerAt: 0 } })])).toBeUndefined();
    expect(toneFor([call({ state: "active" })])).toBeUndefined();
  });
});
