// The headless call-center core (docs/architecture.md): what the agent's toolbar, a host page's
// bridge and a supervisor's view all build on.

// The agent at work: the session, its state as data, and what a surface can ask of it.
export * from "./agent-session";
export * from "./agent-state";
export * from "./agent-activity";
export * from "./commands";
// The agent's other tabs in this browser: they show the tab with the phone and act through it.
export * from "./tab-mirror";
export * from "./command-error";
// Calls: what can be done with each (and whether the platform or the phone does it), the actions.
export * from "./call-controls";
export * from "./call-actions";
export * from "./cc-call";
export * from "./queue-calls";
export { callDataOf } from "./call-data";
// Status and after-call work.
export * from "./agent-status";
export * from "./status-commands";
export { WRAP_UP_BREAK_REASON, DEFAULT_EXTEND_SEC } from "./after-call-work";
export { dispositionFor } from "./wrap-up-storage";
export { DIAL_WAIT_MS } from "./click-to-dial";
export { colleaguesOf } from "./colleagues";
// The page's watch over its own phone: On Break rather than calls ringing into nowhere.
export { PHONE_UNREACHABLE_REASON, PHONE_LOST_GRACE_MS } from "./phone-watch";
// The platform's call-center events, one feed for every consumer of the page.
export * from "./event-feed";
// Who may watch a wallboard. The supervisor's own part (the wallboard, what a supervisor does to
// agents' calls) is ./supervisor: the page loads it for supervisors only.
export * from "./supervisor/supervisor-role";
// The supervisor's action log (kept in this browser) and the supervision legs of a call history,
// which the history reads, are imported from their own files (./supervisor/action-log.ts,
// ./supervisor/supervision-legs.ts): re-exported here, they would come with the page's start.
