import type { Db } from "../store/db";
import type { ExtensionRow, UserRow } from "../store/users";
import { UserStore, parseAgentInfo } from "../store/users";
import type { CcAgentStatus, QueueStrategy } from "./vocabulary";
import { QUEUE_STRATEGIES, agentInfoStatus } from "./vocabulary";

export interface QueueInfo {
  id: number;
  name: string;
  description: string;
  strategy: QueueStrategy;
}

export interface TierInfo {
  queue: string;
  /** The agent number (the user's extension number). */
  agent: string;
  level: number;
  position: number;
}

/** A user who can act as an agent: anyone with an extension; its number is the agent id. */
export interface AgentIdentity {
  userId: number;
  number: string;
  name: string;
  cidName: string;
  cidNumber: string;
  /** What agent_info says the status is (restored on start). */
  storedStatus: unknown;
}

/** The agent_info settings the engine applies to offers, in seconds. */
export interface AgentSettings {
  /** Seconds to ring the agent before the offer counts as not answered. */
  timeout: number;
  wrapUpTime: number;
  maxNoAnswer: number;
  rejectDelayTime: number;
  busyDelayTime: number;
  noAnswerDelayTime: number;
}

/** mod_callcenter's agent-originate-timeout, used when agent_info sets no `timeout`. */
export const DEFAULT_AGENT_TIMEOUT = 60;

/**
 * The call center's view of the platform database: queues, tiers, agents and their agent_info.
 * It reads on every use rather than caching, so that an administrator's change to a user's
 * agent_info (say wrap_up_time) applies to the next offer without a restart.
 */
export class CallCenterDirectory {
  private readonly users: UserStore;

  constructor(private readonly db: Db) {
    this.users = new UserStore(db);
  }

  queue(name: string): QueueInfo | undefined {
    const row = this.db.prepare("SELECT id, name, description, strategy FROM queues WHERE name = ?").get(name) as
      { id: number; name: string; description: string; strategy: string } | undefined;
    return row ? { ...row, strategy: strategyOf(row.strategy) } : undefined;
  }

  queues(): QueueInfo[] {
    const rows = this.db.prepare("SELECT id, name, description, strategy FROM queues ORDER BY id").all() as {
      id: number;
      name: string;
      description: string;
      strategy: string;
    }[];
    return rows.map((r) => ({ ...r, strategy: strategyOf(r.strategy) }));
  }

  /** The tiers of a queue whose agents have an extension (the agent number). */
  tiersOf(queue: string): TierInfo[] {
    return this.db
      .prepare(
        `SELECT q.name AS queue, u.extn AS agent, t.level AS level, t.position AS position
         FROM tiers t JOIN queues q ON q.id = t.queue_id JOIN users u ON u.id = t.user_id
         WHERE q.name = ? AND u.extn != '' AND u.disabled = 0 ORDER BY t.level, t.position, u.extn`,
      )
      .all(queue) as TierInfo[];
  }

  /** Names of the queues an agent has a tier in. */
  queuesOf(agentNumber: string): string[] {
    return (
      this.db
        .prepare(
          `SELECT q.name AS name FROM tiers t JOIN queues q ON q.id = t.queue_id JOIN users u ON u.id = t.user_id
           WHERE u.extn = ? ORDER BY t.level, t.position, q.name`,
        )
        .all(agentNumber) as { name: string }[]
    ).map((r) => r.name);
  }

  agent(number: string): AgentIdentity | undefined {
    if (!number) return undefined;
    const user = this.db
      .prepare("SELECT * FROM users WHERE extn = ? AND disabled = 0 ORDER BY id LIMIT 1")
      .get(number) as UserRow | undefined;
    return user ? identityOf(user) : undefined;
  }

  /** Every user with an extension, for restoring statuses on start. */
  agents(): AgentIdentity[] {
    const rows = this.db
      .prepare("SELECT * FROM users WHERE extn != '' AND disabled = 0 ORDER BY id")
      .all() as UserRow[];
    return rows.map(identityOf);
  }

  user(id: number): UserRow | undefined {
    return this.users.byId(id);
  }

  extension(extn: string): ExtensionRow | undefined {
    return this.users.extension(extn, this.users.defaultDomain());
  }

  extensionsOf(userId: number): ExtensionRow[] {
    return this.users.extensionsOf(userId);
  }

  domain(): string {
    return this.users.defaultDomain();
  }

  settings(number: string): AgentSettings {
    const user = this.db.prepare("SELECT agent_info FROM users WHERE extn = ? ORDER BY id LIMIT 1").get(number) as
      { agent_info: string } | undefined;
    const info = parseAgentInfo(user?.agent_info ?? "{}");
    const seconds = (key: string, fallback: number) => {
      const n = Number(info[key]);
      return Number.isFinite(n) && n >= 0 ? n : fallback;
    };
    return {
      timeout: seconds("timeout", DEFAULT_AGENT_TIMEOUT) || DEFAULT_AGENT_TIMEOUT,
      wrapUpTime: seconds("wrap_up_time", 0),
      maxNoAnswer: Math.floor(seconds("max_no_answer", 0)),
      rejectDelayTime: seconds("reject_delay_time", 0),
      busyDelayTime: seconds("busy_delay_time", 0),
      noAnswerDelayTime: seconds("no_answer_delay_time", 0),
    };
  }

  /** Keeps agent_info's `status` in step with the engine (the spec's spelling). */
  saveStatus(number: string, status: CcAgentStatus): void {
    const user = this.db.prepare("SELECT id, agent_info FROM users WHERE extn = ? ORDER BY id LIMIT 1").get(number) as
      { id: number; agent_info: string } | undefined;
    if (!user) return;
    const info = { ...parseAgentInfo(user.agent_info), status: agentInfoStatus(status) };
    this.users.updateUser(user.id, { agent_info: JSON.stringify(info) });
  }
}

function strategyOf(text: string): QueueStrategy {
  // mod_callcenter falls back to an ordered hunt for strategies it does not know; ours is the
  // default strategy, longest-idle-agent.
  return (QUEUE_STRATEGIES as readonly string[]).includes(text) ? (text as QueueStrategy) : "longest-idle-agent";
}

function identityOf(user: UserRow): AgentIdentity {
  return {
    userId: user.id,
    number: user.extn,
    name: user.name,
    cidName: user.cid_name || user.name,
    cidNumber: user.cid_number || user.extn,
    storedStatus: parseAgentInfo(user.agent_info).status,
  };
}
