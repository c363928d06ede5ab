import { CC, callDataOf, callViewOf, ccLabelsOf, statusKind, type AgentState, type NextStatus } from "../cc";
import type { PhoneSessionState, SessionState } from "../session";
import { isLive, type Call, type CallEnd, type PhoneState } from "../softphone";
import type {
  AgentInfo,
  AgentStatus,
  CallInfo,
  HungUpBy,
  RegistrationInfo,
  Snapshot,
  StatusChoice,
  UserInfo,
  WrapUpInfo,
} from "./host/protocol";

/**
 * The app's state in the protocol's words (`host/protocol.ts`), read from the stores: what a
 * host is told, before its scopes cut it down. Pure functions of the stores' states.
 */

/** What the bridge reads of the phone session: whether the phone could start. */
export type PhoneSessionStatus = Pick<PhoneSessionState, "status" | "problem">;

export interface AppStates {
  session: SessionState;
  phoneSession: PhoneSessionStatus;
  phone: PhoneState;
  calls: readonly Call[];
  agent: AgentState;
}

export function userOf(s: SessionState): UserInfo | null {
  return s.status === "signed-in" && s.user
    ? { login: s.user.login, name: s.user.name, extension: s.user.extension }
    : null;
}

export function registrationOf(s: Pick<AppStates, "session" | "phoneSession" | "phone">): RegistrationInfo {
  if (s.session.status !== "signed-in") return { state: "signed-out" };
  const problem = s.phoneSession.problem;
  // Another tab of the agent in this browser has the phone: calls ring there and are answered through it.
  if (s.phoneSession.status === "elsewhere") return { state: "registered" };
  if (s.phoneSession.status === "unavailable")
    return {
      state: "failed",
      detail: problem
        ? problem.kind === "token"
          ? `token: ${problem.error.message}`
          : problem.kind === "settings"
            ? problem.detail
            : problem.kind
        : "unavailable",
    };
  const r = s.phone.registration;
  switch (r.status) {
    case "registered":
      return { state: "registered" };
    case "reconnecting":
      return { state: "reconnecting", detail: errorText(r.error), nextAttemptAt: r.nextAttemptAt };
    case "failed":
      return { state: "failed", detail: errorText(r.error) };
    default:
      return { state: "connecting" };
  }
}

const errorText = (e: { kind: string; status?: number; reasonPhrase?: string; detail?: string }) =>
  [e.kind, e.status, e.reasonPhrase, e.detail].filter((x) => x !== undefined && x !== "").join(" ");

const STATUS_WORDS: Record<string, AgentStatus> = {
  ready: "ready",
  "on-demand": "ready-on-demand",
  break: "break",
  "logged-out": "signed-out",
  unknown: "unknown",
};

export function statusChoiceOf(next: NextStatus): { status: StatusChoice; reason: string } {
  return { status: STATUS_WORDS[next.kind] as StatusChoice, reason: next.kind === "break" ? next.reason : "" };
}

export function nextStatusOf(status: StatusChoice, reason = ""): NextStatus {
  switch (status) {
    case "ready":
      return { kind: "ready" };
    case "ready-on-demand":
      return { kind: "on-demand" };
    case "break":
      return { kind: "break", reason };
    case "signed-out":
      return { kind: "logged-out" };
  }
}

const PENDING_WORDS = {
  ready: "ready",
  "on-demand": "ready-on-demand",
  break: "break",
  "sign-out": "signed-out",
  "sign-in": "signed-in",
} as const;

export function agentOf(s: AgentState): AgentInfo | null {
  if (s.phase !== "on" || !s.agent) return null;
  const pending = s.pending
    ? ((PENDING_WORDS as Record<string, AgentInfo["pending"]>)[s.pending.command] ?? null)
    : null;
  const next = s.wrapUp?.next ?? s.next;
  return {
    status: STATUS_WORDS[statusKind(s.agent.status)]!,
    reason: s.agent.reason,
    platformStatus: s.agent.status,
    state: s.agent.state,
    pending,
    next: next ? statusChoiceOf(next) : null,
    queues: s.queues.map((q) => q.name),
  };
}

/**
 * A phone call in the protocol's words. A click-to-dial's leg (the platform calls the agent's
 * phone first) is the agent's call out: it is `dialling` until the platform says the other side
 * answered, and its party is the number dialled.
 */
export function callOf(call: Call, agent: AgentState, calls: readonly Call[], answeredAt?: number): CallInfo {
  const view = callViewOf(call, agent, calls);
  const cc = isLive(call) ? view.cc : undefined;
  const labels = ccLabelsOf(call);
  const clickToDial = labels?.action === "dial";
  // The platform's word that the other side answered: its callstate moves on from IDLE, RINGING
  // and DIALING (read again every second while a call is set up). A platform that reports no
  // callstate leaves only the phone's own answer.
  const answered =
    !!call.answeredAt && (!clickToDial || !/^(IDLE|DIALING|RINGING)$/.test(agent.agent?.callstate ?? ""));
  const state: CallInfo["state"] =
    call.state === "ended"
      ? "ended"
      : answered
        ? "connected"
        : call.direction === "inbound" && !clickToDial
          ? "ringing"
          : "dialling";
  const party = cc?.party ?? { number: call.remote.number, name: call.remote.name ?? "" };
  return {
    callId: call.id,
    platformCallId: cc?.callId || labels?.callId || null,
    customerCallId: call.context[CC.customerUuid] ?? null,
    direction: clickToDial ? "outbound" : call.direction,
    state,
    held: view.held,
    muted: call.muted,
    queue: cc?.queue || labels?.queue || null,
    startedAt: call.startedAt,
    answeredAt: answered ? (answeredAt ?? call.answeredAt ?? null) : null,
    party: { number: party.number, name: party.name },
    data: callDataOf(call),
  };
}

export function wrapUpOf(s: AgentState, callIdOf: (platformId: string) => string | undefined): WrapUpInfo | null {
  const w = s.wrapUp;
  if (!w) return null;
  return {
    callId: callIdOf(w.id) ?? w.id,
    queue: w.queue || null,
    endsAt: w.endsAt,
    outcome: w.disposition,
    notes: w.notes,
  };
}

export function snapshotOf(
  s: AppStates,
  answeredAt: (callId: string) => number | undefined,
  callIdOf: (platformId: string) => string | undefined,
): Snapshot {
  return {
    user: userOf(s.session),
    registration: registrationOf(s),
    agent: agentOf(s.agent),
    calls: s.calls.filter(isLive).map((c) => callOf(c, s.agent, s.calls, answeredAt(c.id))),
    wrapUp: wrapUpOf(s.agent, callIdOf),
  };
}

// Q.850 cause names (as FreeSWITCH writes them) of the values a Reason header may carry without its text.
const Q850: Record<number, string> = {
  1: "UNALLOCATED_NUMBER",
  16: "NORMAL_CLEARING",
  17: "USER_BUSY",
  18: "NO_USER_RESPONSE",
  19: "NO_ANSWER",
  21: "CALL_REJECTED",
  27: "DESTINATION_OUT_OF_ORDER",
  31: "NORMAL_UNSPECIFIED",
  34: "NORMAL_CIRCUIT_CONGESTION",
  38: "NETWORK_OUT_OF_ORDER",
  41: "NORMAL_TEMPORARY_FAILURE",
  102: "RECOVERY_ON_TIMER_EXPIRE",
};

// The cause FreeSWITCH would give for what the phone saw, when the platform gave none.
const CAUSE_OF_END: Record<CallEnd["kind"], string> = {
  hangup: "NORMAL_CLEARING",
  cancelled: "ORIGINATOR_CANCEL",
  declined: "CALL_REJECTED",
  busy: "USER_BUSY",
  "no-answer": "NO_ANSWER",
  "not-found": "UNALLOCATED_NUMBER",
  unavailable: "NORMAL_TEMPORARY_FAILURE",
  failed: "NORMAL_UNSPECIFIED",
  transferred: "BLIND_TRANSFER",
  "completed-elsewhere": "LOSE_RACE",
  replaced: "ATTENDED_TRANSFER",
  "connection-lost": "NETWORK_OUT_OF_ORDER",
};

/**
 * Why a call ended and who ended it: the platform's Q.850 cause when its BYE, CANCEL or answer
 * carried one, else the phone's reading of it. `byAgent`: the agent ended it through a command
 * whose effect reaches the phone from the platform (a transfer), so the platform's BYE is the
 * agent's doing.
 */
export function endOf(call: Call, byAgent: boolean): { cause: string; hungUpBy: HungUpBy } {
  const end = call.end;
  if (!end) return { cause: "NORMAL_CLEARING", hungUpBy: "unknown" };
  const q850 = end.reasons?.find((r) => r.protocol === "Q.850");
  const cause = q850 ? (q850.text ?? Q850[q850.cause] ?? `Q850_${q850.cause}`) : CAUSE_OF_END[end.kind];
  const hungUpBy: HungUpBy =
    byAgent || end.by === "local"
      ? "agent"
      : end.kind === "completed-elsewhere"
        ? "platform"
        : end.by === "remote"
          ? "remote"
          : "unknown";
  return { cause, hungUpBy };
}
