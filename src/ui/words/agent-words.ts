import {
  PHONE_UNREACHABLE_REASON,
  WRAP_UP_BREAK_REASON,
  statusKind,
  type AgentState,
  type AgentView,
  type CommandErrorInfo,
  type NextStatus,
} from "../../cc";
import type { Messages } from "../i18n";

// The agent's status, the next status and failed commands in words.

/** The status in words: "Ready", "On break · Lunch", or the platform's own word for one we do not know. */
export function statusLabel(view: Pick<AgentView, "status" | "reason"> | null, t: Messages): string {
  if (!view) return "";
  const kind = statusKind(view.status);
  const m = t.agent;
  if (kind === "unknown") return view.status || "–";
  // The break the toolbar sets while after-call work goes on is after-call work, wherever it shows.
  if (kind === "break" && view.reason === WRAP_UP_BREAK_REASON) return m.wrapUp.title;
  const label = m.status[kind];
  // mod_callcenter's own reason after max_no_answer offers went unanswered, and the toolbar's own.
  const reason =
    view.reason === "max-no-answer"
      ? m.maxNoAnswer
      : view.reason === PHONE_UNREACHABLE_REASON
        ? m.phoneUnreachable
        : view.reason;
  return kind === "break" && reason ? m.statusWithReason(label, reason) : label;
}

export function nextLabel(next: NextStatus, t: Messages): string {
  if (next.kind === "break")
    return next.reason ? t.agent.statusWithReason(t.agent.status.break, next.reason) : t.agent.status.break;
  return t.agent.status[next.kind];
}

/** "Could not go ready: <why>": the platform's refusals in its own words, the rest by their kind. */
export function errorText(error: CommandErrorInfo, t: Messages): string {
  const what = t.agent.failed[error.command] ?? error.command;
  const message = error.kind === "refused" || error.kind === "failed" ? error.message : t.agent.errorKind[error.kind];
  return t.agent.failure(what, message);
}

/**
 * What the page's watch over its phone says now (the status line), "" when all is well: the
 * trouble, the break it set (or that the platform does not show its reason), and after the page
 * slept, what happened meanwhile.
 */
/** The watch's words for this tab: its own phone, or the phone of the agent's other tab. */
export function phoneWatchWords(
  w: AgentState["phoneWatch"],
  t: Messages,
): Omit<Messages["agent"]["phoneWatch"], "elsewhere"> {
  const m = t.agent.phoneWatch;
  return w.elsewhere ? { ...m, ...m.elsewhere } : m;
}

export function phoneWatchText(s: Pick<AgentState, "phoneWatch" | "agent" | "pending">, t: Messages): string {
  const w = s.phoneWatch;
  const m = phoneWatchWords(w, t);
  const onBreak = statusKind(s.agent?.status ?? "") === "break";
  const breakStatus = statusLabel({ status: "On Break", reason: PHONE_UNREACHABLE_REASON }, t);
  // A platform without break reasons in agent_state shows the break, not why.
  const notKept =
    onBreak && !s.pending && s.agent?.reason !== PHONE_UNREACHABLE_REASON
      ? ` ${m.reasonNotKept(t.agent.phoneUnreachable)}`
      : "";
  if (w.trouble) {
    const first = w.trouble === "lost" ? m.lost : m.asleep;
    return w.breakSetAt ? `${first} ${m.setOnBreak(breakStatus)}${notKept}` : first;
  }
  if (w.woke?.earlier) return onBreak ? m.earlier(breakStatus) : "";
  if (w.woke) return onBreak || s.pending?.command === "break" ? `${m.woke(breakStatus)}${notKept}` : m.wokeNotSet;
  return "";
}
