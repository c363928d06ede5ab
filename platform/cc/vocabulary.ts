/**
 * The call-center vocabulary: mod_callcenter's agent statuses and states, tier and member states,
 * and how they are spelled elsewhere (the spec's agent_info `status`, XSwitch's agent_state).
 */

/** Set by the agent or an API call (mod_callcenter `cc_agent_status_t`). */
export type CcAgentStatus = "Logged Out" | "Available" | "Available (On Demand)" | "On Break";
export const CC_AGENT_STATUSES: readonly CcAgentStatus[] = [
  "Logged Out",
  "Available",
  "Available (On Demand)",
  "On Break",
];

/** Set by the engine as calls come and go (mod_callcenter `cc_agent_state_t`). */
export type CcAgentState = "Waiting" | "Receiving" | "In a queue call" | "Idle";

/** Per queue and agent (mod_callcenter `cc_tier_state_t`). */
export type TierState = "Ready" | "No Answer" | "Offering" | "Active Inbound" | "Standby";

/** A caller in a queue (mod_callcenter `cc_member_state_t`). */
export type MemberState = "Waiting" | "Trying" | "Answered" | "Abandoned";

export type QueueStrategy = "longest-idle-agent" | "ring-all";
export const QUEUE_STRATEGIES: readonly QueueStrategy[] = ["longest-idle-agent", "ring-all"];

export function isAvailable(status: CcAgentStatus): boolean {
  return status === "Available" || status === "Available (On Demand)";
}

/** The spec's agent_info `status` spelling of a status (`Out`, `Available(On Demand)`). */
export function agentInfoStatus(status: CcAgentStatus): string {
  switch (status) {
    case "Logged Out":
      return "Out";
    case "Available (On Demand)":
      return "Available(On Demand)";
    default:
      return status;
  }
}

/**
 * Reads an agent_info `status` back. Both spellings are accepted (an administrator may have
 * written mod_callcenter's); anything else reads as Logged Out, the status that offers no calls.
 */
export function statusFromAgentInfo(value: unknown): CcAgentStatus {
  switch (typeof value === "string" ? value.trim() : "") {
    case "Available":
      return "Available";
    case "Available(On Demand)":
    case "Available (On Demand)":
      return "Available (On Demand)";
    case "On Break":
      return "On Break";
    default:
      return "Logged Out";
  }
}

/**
 * XSwitch's `state` of GET /api/cc/agent_state for a status: READY takes calls, UNREADY is signed
 * in without taking calls (a break, with its reason beside it), LOGOUT is signed out.
 */
export function xswitchState(status: CcAgentStatus): "READY" | "UNREADY" | "LOGOUT" {
  switch (status) {
    case "Available":
    case "Available (On Demand)":
      return "READY";
    case "On Break":
      return "UNREADY";
    case "Logged Out":
      return "LOGOUT";
  }
}

/** XSwitch's `callstate` of GET /api/cc/agent_state: what the agent's phone is doing. */
export type CcCallState = "IDLE" | "RINGING" | "DIALING" | "TALKING" | "HOLD" | "CONSULTING" | "MONITORING";
