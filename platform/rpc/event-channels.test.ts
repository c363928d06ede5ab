import { describe, expect, it } from "vitest";
import type { CcCaller } from "../cc/cc-caller";
import { ccEvent } from "../cc/cc-event";
import { CC_INFO_CHANNEL, channelsOfCcEvent, mayAccessChannel, maySeeCcEvent, type Viewer } from "./event-channels";

function viewer(role: CcCaller["role"], agentNumber: string, queues: string[]): Viewer {
  return {
    caller: { userId: 1, login: "x", role, agentNumber, extensions: agentNumber ? [agentNumber] : [] },
    queues: () => new Set(queues),
    queueExists: (q) => ["support", "sales"].includes(q),
    agentExists: (a) => ["1001", "1002"].includes(a),
  };
}

const alice = viewer("agent", "1001", ["support"]);
const sam = viewer("supervisor", "1010", []);

describe("who may subscribe to what", () => {
  it("lets an agent have its own channel and its queues', a supervisor every existing one", () => {
    expect(mayAccessChannel(CC_INFO_CHANNEL, alice)).toBe(true);
    expect(mayAccessChannel("cc.agent.1001", alice)).toBe(true);
    expect(mayAccessChannel("cc.agent.1002", alice)).toBe(false);
    expect(mayAccessChannel("cc.queue.support", alice)).toBe(true);
    expect(mayAccessChannel("cc.queue.sales", alice)).toBe(false);
    expect(mayAccessChannel("cc.agent.1002", sam)).toBe(true);
    expect(mayAccessChannel("cc.queue.sales", sam)).toBe(true);
    expect(mayAccessChannel("cc.queue.nosuch", sam)).toBe(false);
    expect(mayAccessChannel("cc.agent.9999", sam)).toBe(false);
    expect(mayAccessChannel("FSevent.channel_create", alice)).toBe(true);
    expect(mayAccessChannel("FSevent.heartbeat", sam)).toBe(false);
  });
});

describe("who sees which event", () => {
  const status2 = ccEvent("agent-status-change", { "CC-Agent": "1002", "CC-Agent-Status": "Available" });
  const offer1 = ccEvent("agent-offering", { "CC-Agent": "1001", "CC-Queue": "support" });
  const joinSupport = ccEvent("member-queue-start", { "CC-Queue": "support" });
  const joinSales = ccEvent("member-queue-start", { "CC-Queue": "sales" });

  it("shows an agent its own events and the agent-less events of its queues", () => {
    expect(maySeeCcEvent(offer1, alice)).toBe(true);
    expect(maySeeCcEvent(status2, alice)).toBe(false);
    expect(maySeeCcEvent(joinSupport, alice)).toBe(true);
    expect(maySeeCcEvent(joinSales, alice)).toBe(false);
    for (const e of [offer1, status2, joinSupport, joinSales]) expect(maySeeCcEvent(e, sam)).toBe(true);
  });

  it("publishes an event on the all-events channel, its agent's and its queue's", () => {
    expect(channelsOfCcEvent(offer1)).toEqual([CC_INFO_CHANNEL, "cc.agent.1001", "cc.queue.support"]);
    expect(channelsOfCcEvent(joinSales)).toEqual([CC_INFO_CHANNEL, "cc.queue.sales"]);
  });
});
