/**
 * Schema migrations, applied in order; `PRAGMA user_version` records how many have run. Append a
 * new entry for every change; never edit one that has shipped.
 */
export const migrations: string[] = [
  `
  CREATE TABLE domains (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL DEFAULT ''
  );

  CREATE TABLE users (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    login TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    extn TEXT NOT NULL DEFAULT '',
    cid_name TEXT NOT NULL DEFAULT '',
    cid_number TEXT NOT NULL DEFAULT '',
    context TEXT NOT NULL DEFAULT 'context-1',
    domain TEXT NOT NULL DEFAULT '',
    vm_password TEXT NOT NULL DEFAULT '',
    email TEXT NOT NULL DEFAULT '',
    type TEXT NOT NULL DEFAULT 'NORMAL',
    tel TEXT NOT NULL DEFAULT '',
    auto_record INTEGER NOT NULL DEFAULT 0,
    disabled INTEGER NOT NULL DEFAULT 0,
    agent_info TEXT NOT NULL DEFAULT '{}',
    tel_enabled INTEGER NOT NULL DEFAULT 0,
    is_super INTEGER NOT NULL DEFAULT 0,
    is_admin INTEGER NOT NULL DEFAULT 0,
    roles TEXT NOT NULL DEFAULT '',
    extn_id INTEGER,
    login_attempts INTEGER NOT NULL DEFAULT 0,
    is_locked INTEGER NOT NULL DEFAULT 0,
    locked_until TEXT NOT NULL DEFAULT '',
    idle_timeout INTEGER NOT NULL DEFAULT 0,
    last_login_at TEXT NOT NULL DEFAULT '',
    first_login TEXT NOT NULL DEFAULT '',
    last_login_attempt_at TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL DEFAULT '',
    deleted_at TEXT NOT NULL DEFAULT ''
  );

  CREATE TABLE extensions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
    extn TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    type TEXT NOT NULL DEFAULT 'SIP+WebRTC',
    domain TEXT NOT NULL,
    context TEXT NOT NULL DEFAULT 'context-1',
    cid_name TEXT NOT NULL DEFAULT '',
    cid_number TEXT NOT NULL DEFAULT '',
    password TEXT NOT NULL,
    vm_password TEXT NOT NULL DEFAULT '',
    mac_address TEXT NOT NULL DEFAULT '',
    codec TEXT NOT NULL DEFAULT '',
    auto_record INTEGER NOT NULL DEFAULT 0,
    disabled INTEGER NOT NULL DEFAULT 0,
    timeout INTEGER NOT NULL DEFAULT 60,
    call_limit INTEGER NOT NULL DEFAULT 0,
    description TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL DEFAULT '',
    deleted_at TEXT NOT NULL DEFAULT '',
    UNIQUE (extn, domain)
  );

  CREATE TABLE dev_keys (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    k TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    enabled INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL DEFAULT '',
    deleted_at TEXT NOT NULL DEFAULT ''
  );

  CREATE TABLE queues (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    strategy TEXT NOT NULL DEFAULT 'longest-idle-agent',
    created_at TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL DEFAULT ''
  );

  CREATE TABLE tiers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    queue_id INTEGER NOT NULL REFERENCES queues(id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    level INTEGER NOT NULL DEFAULT 1,
    position INTEGER NOT NULL DEFAULT 1,
    UNIQUE (queue_id, user_id)
  );
  `,
];
