import type { AgentStateRecord } from "../../../api";
import type { WallboardAgent } from "../wallboard";

/** `count` idle agents on break as `GET /api/cc/agent_state` lists them, from extension 10000 on. */
export function idleAgentRecords(count: number): AgentStateRecord[] {
  return Array.from({ length: count }, (_, i) => {
    const n = String(10000 + i);
    return {
      agent_id: n,
      extn: n,
      group_id: i % 2 ? "sales" : "support",
      queue_id: "",
      agent_uuid: "",
      state: "UNREADY",
      callstate: "IDLE",
      name: `Agent ${i}`,
      status: "On Break",
      cc_state: "Waiting",
      reason: "",
      status_since: "",
      no_answer_count: 0,
      ready_time: "",
      wrap_up_until: "",
      call: null,
    };
  });
}

/** A board's row of an agent ready and waiting in the support queue, as `o` changes it. */
export function wallboardAgent(number: string, o: Partial<WallboardAgent> = {}): WallboardAgent {
  return {
    number,
    name: `Agent ${number}`,
    extension: number,
    status: "Available",
    kind: "ready",
    reason: "",
    state: "Waiting",
    callstate: "IDLE",
    call: null,
    statusSince: 0,
    statusSinceExact: true,
    platformSince: "",
    noAnswerCount: 0,
    queues: ["support"],
    wrapUpUntil: "",
    ...o,
  };
}
