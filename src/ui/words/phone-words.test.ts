import { describe, expect, it } from "vitest";
import type { PhoneSessionState } from "../../session";
import type { RegistrationState } from "../../softphone";
import { testCall } from "../../softphone/testing/test-call";
import { catalogues } from "../i18n/all";
import { formatDuration } from "../shared/format";
import { displayTarget, stateText, whoOf } from "./call-words";
import { registrationWords } from "./phone-words";

const en = catalogues.en;
const zh = catalogues["zh-CN"];
const call = testCall;
const session = (patch: Partial<PhoneSessionState>) =>
  ({
    status: "on",
    problem: null,
    address: "",
    server: "",
    lastDialled: "",
    restartPending: false,
    ...patch,
  }) as PhoneSessionState;
const time = (ms: number) => new Date(ms).toISOString().slice(11, 19);

describe("the registration status in words", () => {
  it("says reconnecting with the reason and when the next attempt comes, with a retry", () => {
    const reg: RegistrationState = {
      status: "reconnecting",
      attempt: 3,
      nextAttemptAt: Date.UTC(2031, 0, 1, 14, 35, 10),
      error: { kind: "transport" },
    };
    expect(registrationWords(session({}), reg, en, time)).toEqual({
      label: "Reconnecting",
      tone: "warn",
      detail:
        "The connection to the phone server was lost or could not be opened. Next attempt at 14:35:10 (attempt 3).",
      canRetry: true,
    });
    expect(registrationWords(session({}), reg, zh, time).detail).toBe(
      "与电话服务器的连接已断开或无法建立。 将于 14:35:10 重试（第 3 次）。",
    );
  });

  it("says why it failed: refused credentials, an unavailable server", () => {
    expect(
      registrationWords(session({}), { status: "failed", error: { kind: "auth", status: 403 } }, en, time),
    ).toMatchObject({
      label: "Not connected",
      tone: "error",
      detail: "The phone server refused the extension's credentials.",
    });
    expect(
      registrationWords(
        session({}),
        { status: "reconnecting", attempt: 2, nextAttemptAt: 0, error: { kind: "server", status: 503 } },
        en,
        time,
      ).detail,
    ).toContain("(503)");
  });

  it('says the phone is connected when registered (never "Ready", which is the agent\'s status), and tells a user without an extension that there is no phone', () => {
    expect(registrationWords(session({}), { status: "registered", registeredAt: 0 }, en, time)).toMatchObject({
      label: "Phone connected",
      tone: "ok",
      detail: "",
    });
    expect(
      registrationWords(
        session({ status: "unavailable", problem: { kind: "no-extension" } }),
        { status: "stopped" },
        en,
        time,
      ),
    ).toMatchObject({
      label: "No phone",
      detail: "Your account has no extension, so there is no phone.",
      canRetry: false,
    });
    const token = session({
      status: "unavailable",
      problem: { kind: "token", error: { kind: "network", status: 0, message: "platform unreachable" } },
    });
    expect(registrationWords(token, { status: "stopped" }, en, time)).toMatchObject({
      tone: "error",
      canRetry: true,
      detail: "The platform did not give the phone's credentials: platform unreachable",
    });
  });
});

describe("calls in words", () => {
  it("names the other party by name, else number, else as unknown", () => {
    expect(whoOf(call({}), en)).toBe("Bob");
    expect(whoOf(call({ remote: { number: "2000", uri: "", withheld: false } }), en)).toBe("2000");
    expect(whoOf(call({ remote: { number: "", uri: "sip:anonymous@anonymous.invalid", withheld: true } }), zh)).toBe(
      "未知来电",
    );
  });

  it("says where a call stands, call waiting and how it ended", () => {
    expect(stateText(call({}), en, false)).toBe("Incoming call");
    expect(stateText(call({}), en, true)).toBe("Call waiting");
    expect(
      stateText(
        call({ direction: "outbound", state: "early", progress: { status: 183, reasonPhrase: "", earlyMedia: true } }),
        en,
        false,
      ),
    ).toBe("Ringing…");
    expect(stateText(call({ state: "remote-held" }), en, false)).toBe("Held by the other side");
    expect(stateText(call({ state: "ended", end: { kind: "declined", by: "remote", status: 603 } }), en, false)).toBe(
      "Declined",
    );
    // Completed elsewhere: answered on another device while ringing; once answered, taken over (intercepted).
    expect(stateText(call({ state: "ended", end: { kind: "completed-elsewhere", by: "remote" } }), en, false)).toBe(
      "Answered elsewhere",
    );
    expect(
      stateText(call({ state: "ended", answeredAt: 5, end: { kind: "completed-elsewhere", by: "remote" } }), en, false),
    ).toBe("Taken over by a supervisor");
    expect(stateText(call({ state: "ended", end: { kind: "busy", by: "remote", status: 486 } }), zh, false)).toBe(
      "忙线",
    );
  });

  it("formats durations and SIP targets for people", () => {
    expect(formatDuration(7)).toBe("0:07");
    expect(formatDuration(723)).toBe("12:03");
    expect(formatDuration(3723)).toBe("1:02:03");
    expect(displayTarget("sip:1002@agentbar.local;user=phone")).toBe("1002");
    expect(displayTarget("sip:alice@example.com")).toBe("alice@example.com");
  });
});
