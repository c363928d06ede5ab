import type { CallRecord } from "../../api/cdrs";
import type { SupervisorCommand, SupervisorLogEntry } from "./action-log";

/** What a supervision leg of the supervisor's call history was: its modes in order, and whose call. */
export interface SupervisionLeg {
  /** `monitor`, `whisper`, `whisper-customer`, `barge`, `intercept`, in the order they happened. */
  modes: readonly SupervisorCommand[];
  /** The agent whose call it was (number), and its name when known. */
  agent: string;
  agentName: string;
}

const MODES: readonly SupervisorCommand[] = ["monitor", "whisper", "whisper-customer", "barge", "intercept"];
const SIDES: Record<string, SupervisorCommand> = { monitor: "monitor", "three-way": "barge", intercept: "intercept" };

/** The log's entries belong to a leg within this much of its record's times (the log is written once the leg answered). */
const SLACK_MS = 2_000;

/**
 * Whether a call record is a supervision leg, and what it did: from the record where it says so
 * (the local platform's `cc_side`), and from the supervisor's action log for what the record
 * cannot tell (the keys that switched modes, and any record of a platform without variables):
 * the entries that name the leg's uuid, else those whose time falls within the leg and whose
 * agent is the leg's caller (a supervision leg shows the agent as its caller). Null: a plain call.
 */
export function supervisionLegOf(record: CallRecord, log: readonly SupervisorLogEntry[]): SupervisionLeg | null {
  const start = record.startedAt ?? record.answeredAt;
  const end = record.endedAt ?? start;
  const done = log.filter((e) => e.outcome === "done" && MODES.includes(e.command));
  const byLeg = done.filter((e) => e.leg === record.uuid);
  const entries = byLeg.length
    ? byLeg
    : start !== null && end !== null
      ? done.filter(
          (e) =>
            !e.leg &&
            e.agent === (record.ccTargetAgent || record.callerNumber) &&
            e.at >= start - SLACK_MS &&
            e.at <= end + SLACK_MS,
        )
      : [];
  const side = SIDES[record.ccSide ?? ""];
  if (!side && !entries.length) return null;
  const modes: SupervisorCommand[] = side ? [side] : [];
  for (const e of [...entries].sort((a, b) => a.at - b.at)) if (modes.at(-1) !== e.command) modes.push(e.command);
  const agent = record.ccTargetAgent || entries[0]?.agent || record.callerNumber;
  return { modes, agent, agentName: entries.find((e) => e.agentName)?.agentName || record.callerName };
}
