import type { Channel, Switch } from "../switch/types";
import { isSupervisor, type CcCaller } from "../cc/cc-caller";
import type { CcEvent } from "../cc/cc-event";

/**
 * Event channels of the JSON-RPC connection and who may see what on them.
 *
 * - `FSevent.custom::callcenter::info`: every call-center event (mod_verto's name for
 *   mod_callcenter's events), filtered to what the subscriber may see.
 * - `cc.agent.<agent>`: the events of one agent (those with `CC-Agent`).
 * - `cc.queue.<queue>`: the events of one queue (those with `CC-Queue`), filtered likewise.
 * - `FSevent.channel_create|channel_answer|channel_bridge|channel_hangup`: channel events of the
 *   subscriber's own phone legs and the legs they are bridged to (screen pops).
 *
 * An agent sees its own agent events and the events of its queues that name no other agent
 * (callers joining, leaving, queue counts); a supervisor or administrator sees everything.
 */
export const CC_INFO_CHANNEL = "FSevent.custom::callcenter::info";
export const AGENT_CHANNEL_PREFIX = "cc.agent.";
export const QUEUE_CHANNEL_PREFIX = "cc.queue.";
export const CHANNEL_EVENT_CHANNELS = [
  "FSevent.channel_create",
  "FSevent.channel_answer",
  "FSevent.channel_bridge",
  "FSevent.channel_hangup",
] as const;
export type ChannelEventChannel = (typeof CHANNEL_EVENT_CHANNELS)[number];

/** Who is subscribed: the caller and, looked up when needed, the queues it belongs to. */
export interface Viewer {
  caller: CcCaller;
  /** Queues the viewer is in (tiers, and the queue it signed into). */
  queues(): Set<string>;
  queueExists(name: string): boolean;
  agentExists(number: string): boolean;
}

/** Whether a viewer may subscribe to a channel (unknown names are refused like forbidden ones). */
export function mayAccessChannel(name: string, viewer: Viewer): boolean {
  if (name === CC_INFO_CHANNEL || (CHANNEL_EVENT_CHANNELS as readonly string[]).includes(name)) return true;
  if (name.startsWith(AGENT_CHANNEL_PREFIX)) {
    const agent = name.slice(AGENT_CHANNEL_PREFIX.length);
    if (!viewer.agentExists(agent)) return false;
    return isSupervisor(viewer.caller) || agent === viewer.caller.agentNumber;
  }
  if (name.startsWith(QUEUE_CHANNEL_PREFIX)) {
    const queue = name.slice(QUEUE_CHANNEL_PREFIX.length);
    if (!viewer.queueExists(queue)) return false;
    return isSupervisor(viewer.caller) || viewer.queues().has(queue);
  }
  return false;
}

/** The channels a call-center event is published on. */
export function channelsOfCcEvent(event: CcEvent): string[] {
  const out = [CC_INFO_CHANNEL];
  if (event["CC-Agent"]) out.push(AGENT_CHANNEL_PREFIX + event["CC-Agent"]);
  if (event["CC-Queue"]) out.push(QUEUE_CHANNEL_PREFIX + event["CC-Queue"]);
  return out;
}

export function maySeeCcEvent(event: CcEvent, viewer: Viewer): boolean {
  if (isSupervisor(viewer.caller)) return true;
  const agent = event["CC-Agent"];
  if (agent) return agent === viewer.caller.agentNumber;
  const queue = event["CC-Queue"];
  return queue !== undefined && viewer.queues().has(queue);
}

/** A switch event in FreeSWITCH's header names, as mod_verto publishes it on FSevent.<name>. */
export function channelEventData(
  name: "CHANNEL_CREATE" | "CHANNEL_ANSWER" | "CHANNEL_BRIDGE" | "CHANNEL_HANGUP",
  ch: Channel,
  extra: Record<string, string> = {},
) {
  const data: Record<string, string> = {
    "Event-Name": name,
    "Event-Date-Timestamp": String(Date.now() * 1000),
    "Unique-ID": ch.uuid,
    "Call-Direction": ch.direction,
    "Channel-Call-State": ch.state.toUpperCase(),
    "Caller-Caller-ID-Name": ch.callerIdName,
    "Caller-Caller-ID-Number": ch.callerIdNumber,
    "Caller-Destination-Number": ch.destinationNumber,
  };
  if (ch.extension) data["Channel-Extension"] = ch.extension;
  for (const key of ["cc_queue", "cc_agent", "cc_member_uuid", "cc_side"]) {
    const v = ch.variables.get(key);
    if (v !== undefined) data[`variable_${key}`] = v;
  }
  return { ...data, ...extra };
}

/** A channel event concerns a viewer when it is about one of its phone's legs or a leg bridged to one. */
export function maySeeChannelEvent(channels: Channel[], viewer: Viewer, sw: Switch): boolean {
  if (isSupervisor(viewer.caller)) return true;
  const mine = (ch: Channel | undefined) =>
    ch?.extension !== undefined && viewer.caller.extensions.includes(ch.extension);
  return channels.some((ch) => mine(ch) || mine(sw.partnerOf(ch)));
}
