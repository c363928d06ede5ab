import { statusKind, type AgentView, type CommandError, type NextStatus } from "../../cc";
import type { Messages } from "../i18n";

// The agent's status, the next status and failed commands in words.

/** The status in words: "Ready", "On break · Lunch", or the platform's own word for one we do not know. */
export function statusLabel(view: Pick<AgentView, "status" | "reason"> | null, t: Messages): string {
  if (!view) return "";
  const kind = statusKind(view.status);
  const m = t.agent;
  if (kind === "unknown") return view.status || "–";
  const label = m.status[kind];
  // mod_callcenter's own reason after max_no_answer offers went unanswered.
  const reason = view.reason === "max-no-answer" ? m.maxNoAnswer : view.reason;
  return kind === "break" && reason ? m.statusWithReason(label, reason) : label;
}

export function nextLabel(next: NextStatus, t: Messages): string {
  if (next.kind === "break") return next.reason ? t.agent.statusWithReason(t.agent.status.break, next.reason) : t.agent.status.break;
  return t.agent.status[next.kind];
}

/** "Could not go ready: <why>": the platform's refusals in its own words, the rest by their kind. */
export function errorText(error: CommandError, t: Messages): string {
  const what = t.agent.failed[error.command] ?? error.command;
  const message = error.kind === "refused" || error.kind === "failed" ? error.message : t.agent.errorKind[error.kind];
  return t.agent.failure(what, message);
}
