import { readFileSync } from "node:fs";
import { hashPasswordAtStartup } from "./auth/passwords";
import type { Db } from "./store/db";
import { timestamp } from "./store/db";
import { DEFAULT_AGENT_INFO, UserStore } from "./store/users";

export interface DemoData {
  domain: string;
  password: string;
  extensionPassword: string;
  users: {
    login: string;
    name: string;
    type: string;
    extn?: string;
    is_admin?: number;
    roles?: string;
    agent_info?: Record<string, string>;
  }[];
  queues: {
    name: string;
    description?: string;
    strategy?: string;
    tiers: { agent: string; level?: number; position?: number }[];
  }[];
}

export function readDemoData(file: string): DemoData {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as DemoData;
  } catch (e) {
    throw new Error(`cannot read the demo data file ${file}: ${(e as Error).message}`, { cause: e });
  }
}

/** Fills an empty database with the demo domain, users, extensions, queues and tiers. */
export function seedDemoData(db: Db, data: DemoData): void {
  const users = new UserStore(db);
  const now = timestamp();
  db.transaction(() => {
    db.prepare("INSERT INTO domains (name, created_at) VALUES (?, ?)").run(data.domain, now);
    // One hash for all demo users keeps the first start fast; each user still gets its own row.
    const passwordHash = hashPasswordAtStartup(data.password);
    for (const u of data.users) {
      const userId = users.insertUser({
        login: u.login,
        name: u.name,
        password_hash: passwordHash,
        type: u.type,
        domain: data.domain,
        is_admin: u.is_admin ?? 0,
        is_super: u.is_admin ? 1 : 0,
        roles: u.roles ?? "",
        agent_info: JSON.stringify(u.type === "AGENT" ? { ...DEFAULT_AGENT_INFO, ...u.agent_info } : {}),
      });
      if (u.extn) {
        const extnId = users.insertExtension({
          user_id: userId,
          extn: u.extn,
          name: u.name,
          domain: data.domain,
          cid_name: u.name,
          cid_number: u.extn,
          password: data.extensionPassword,
        });
        users.updateUser(userId, { extn: u.extn, extn_id: extnId, cid_name: u.name, cid_number: u.extn });
      }
    }
    for (const q of data.queues) {
      const info = db
        .prepare("INSERT INTO queues (name, description, strategy, created_at, updated_at) VALUES (?, ?, ?, ?, ?)")
        .run(q.name, q.description ?? "", q.strategy ?? "longest-idle-agent", now, now);
      for (const t of q.tiers) {
        const agent = users.byLogin(t.agent);
        if (!agent) throw new Error(`demo data: queue ${q.name} names unknown agent ${t.agent}`);
        db.prepare("INSERT INTO tiers (queue_id, user_id, level, position) VALUES (?, ?, ?, ?)").run(
          info.lastInsertRowid,
          agent.id,
          t.level ?? 1,
          t.position ?? 1,
        );
      }
    }
  })();
}
