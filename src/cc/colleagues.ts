import { getAgentState, type AgentStateRecord } from "../api/cc";
import type { AgentContext } from "./agent-context";
import type { Colleague } from "./agent-state";
import { agentViewOf } from "./agent-status";

/** The other agents of the agent's queues, with their status: the targets of a transfer or a consultation. */
export async function loadColleagues(ctx: AgentContext): Promise<void> {
  const client = ctx.client;
  const { queues, number } = ctx.store.getState();
  if (!client) return;
  const rows = (await Promise.all(queues.map((q) => getAgentState(client, { queue: q.name }).catch(() => [])))).flat();
  ctx.store.setState({ colleagues: colleaguesOf(rows, number) });
}

/** One entry per agent of the rows but `me`, by number. */
export function colleaguesOf(rows: readonly AgentStateRecord[], me: string): Colleague[] {
  const seen = new Map<string, Colleague>();
  for (const r of rows) {
    if (r.agent_id && r.agent_id !== me && !seen.has(r.agent_id)) {
      seen.set(r.agent_id, {
        number: r.agent_id,
        name: r.name,
        status: agentViewOf(r).status,
        callstate: r.callstate,
        extension: r.extn,
      });
    }
  }
  return [...seen.values()].sort((a, b) => a.number.localeCompare(b.number));
}
