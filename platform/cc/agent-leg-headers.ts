import type { Member } from "./agent";
import { epochSeconds } from "./cc-event";
import { sipHeaderVariablesOf } from "../switch/sip-header-variables";

/**
 * The SIP headers of INVITEs the call center sends to phones, documented in
 * docs/platform-contract.md. The caller's name and number travel in From, as mod_callcenter's
 * originate sets them; these say which queue, which member and which callID the leg belongs to,
 * so that a phone can show "Support queue" and the toolbar can act on the call at once.
 */
export type LegPurpose = "queue" | "dial" | "monitor" | "three-way" | "intercept" | "consult" | "transfer";

/** Header values stay on one line without control characters; a line break would let a name inject headers. */
const safe = (value: string) => value.replace(/[\p{Cc}]+/gu, " ").trim();

export function agentLegHeaders(o: { queue: string; member: Member; agentUuid: string; agent: string }): string[] {
  return [
    `X-CC-Action: queue`,
    `X-CC-Queue: ${safe(o.queue)}`,
    `X-CC-Agent: ${safe(o.agent)}`,
    `X-CC-Agent-UUID: ${o.agentUuid}`,
    `X-CC-Member-UUID: ${o.member.uuid}`,
    `X-CC-Member-Session-UUID: ${o.member.channel.uuid}`,
    `X-CC-Member-Joined: ${epochSeconds(o.member.joinedAt)}`,
  ];
}

/**
 * Channel variables of an agent leg, as mod_callcenter sets them; they reach the CDR. The
 * caller's data (its `sip_h_` variables) goes with them, as a queue whose dialplan lists them in
 * `cc_export_vars` hands them on: the phone gets them as headers.
 */
export function agentLegVariables(o: { queue: string; member: Member; agent: string }): Record<string, string> {
  return {
    ...sipHeaderVariablesOf(o.member.channel),
    cc_side: "agent",
    cc_queue: o.queue,
    cc_agent: o.agent,
    cc_agent_type: "callback",
    cc_member_uuid: o.member.uuid,
    cc_member_session_uuid: o.member.channel.uuid,
    cc_member_pre_answer_uuid: o.member.uuid,
    ignore_early_media: "true",
  };
}

/** Headers of the other legs the call center originates (ccDial, monitor, three-way, ...). */
export function controlLegHeaders(o: {
  purpose: Exclude<LegPurpose, "queue">;
  agent?: string;
  agentUuid: string;
  targetUuid?: string;
  queue?: string;
}): string[] {
  const headers = [`X-CC-Action: ${o.purpose}`, `X-CC-Agent-UUID: ${o.agentUuid}`];
  if (o.agent) headers.push(`X-CC-Agent: ${safe(o.agent)}`);
  if (o.targetUuid) headers.push(`X-CC-Target-UUID: ${o.targetUuid}`);
  if (o.queue) headers.push(`X-CC-Queue: ${safe(o.queue)}`);
  return headers;
}
