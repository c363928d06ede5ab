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
  // Call records (one row per leg, as FreeSWITCH writes them) and media files (recordings).
  `
  CREATE TABLE media_files (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    channel_uuid TEXT NOT NULL DEFAULT '',
    type TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    ext TEXT NOT NULL DEFAULT '',
    mime TEXT NOT NULL DEFAULT '',
    file_size INTEGER NOT NULL DEFAULT 0,
    abs_path TEXT NOT NULL DEFAULT '',
    dir_path TEXT NOT NULL DEFAULT '',
    rel_path TEXT NOT NULL DEFAULT '',
    original_file_name TEXT NOT NULL DEFAULT '',
    file_name TEXT NOT NULL DEFAULT '',
    thumb_path TEXT NOT NULL DEFAULT '',
    geo_position TEXT NOT NULL DEFAULT '',
    meta TEXT NOT NULL DEFAULT '',
    processing_flag INTEGER NOT NULL DEFAULT 0,
    user_id INTEGER,
    domain TEXT NOT NULL DEFAULT '',
    duration INTEGER NOT NULL DEFAULT 0,
    bit_rate INTEGER NOT NULL DEFAULT 0,
    sample_rate INTEGER NOT NULL DEFAULT 0,
    channels INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL DEFAULT '',
    deleted_at TEXT NOT NULL DEFAULT ''
  );
  CREATE INDEX media_files_channel ON media_files (channel_uuid);

  CREATE TABLE cdrs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    uuid TEXT NOT NULL UNIQUE,
    bleg_uuid TEXT NOT NULL DEFAULT '',
    other_uuid TEXT NOT NULL DEFAULT '',
    caller_id_name TEXT NOT NULL DEFAULT '',
    caller_id_number TEXT NOT NULL DEFAULT '',
    destination_number TEXT NOT NULL DEFAULT '',
    start_stamp TEXT NOT NULL DEFAULT '',
    ring_stamp TEXT NOT NULL DEFAULT '',
    answer_stamp TEXT NOT NULL DEFAULT '',
    end_stamp TEXT NOT NULL DEFAULT '',
    duration INTEGER NOT NULL DEFAULT 0,
    billsec INTEGER NOT NULL DEFAULT 0,
    account_code TEXT NOT NULL DEFAULT '',
    hangup_cause TEXT NOT NULL DEFAULT '',
    sip_hangup_disposition TEXT NOT NULL DEFAULT '',
    network_addr TEXT NOT NULL DEFAULT '',
    network_port TEXT NOT NULL DEFAULT '',
    context TEXT NOT NULL DEFAULT '',
    direction TEXT NOT NULL DEFAULT '',
    realm TEXT NOT NULL DEFAULT '',
    external_tracking_id TEXT NOT NULL DEFAULT '',
    caller_source TEXT NOT NULL DEFAULT '',
    digits_dialed TEXT NOT NULL DEFAULT '',
    sip_call_id TEXT NOT NULL DEFAULT '',
    xui_route_ids TEXT NOT NULL DEFAULT '',
    abs_path TEXT NOT NULL DEFAULT '',
    rel_path TEXT NOT NULL DEFAULT '',
    rtp_use_codec_name TEXT NOT NULL DEFAULT '',
    xui_hangup_cause TEXT NOT NULL DEFAULT '',
    media_file_id INTEGER,
    extn TEXT NOT NULL DEFAULT '',
    user_id INTEGER,
    variables TEXT NOT NULL DEFAULT '{}'
  );
  CREATE INDEX cdrs_start ON cdrs (start_stamp);
  CREATE INDEX cdrs_end ON cdrs (end_stamp);
  CREATE INDEX cdrs_call_id ON cdrs (sip_call_id);
  CREATE INDEX cdrs_bleg ON cdrs (bleg_uuid);
  CREATE INDEX cdrs_other ON cdrs (other_uuid);
  `,
  // Calls in progress, so that a crash does not lose their records (platform/switch/call-journal.ts).
  `
  CREATE TABLE live_calls (
    uuid TEXT PRIMARY KEY,
    record TEXT NOT NULL,
    seen_at INTEGER NOT NULL
  );
  `,
  // One queue's records of a day (GET /api/cdrs?groupValue=, a supervisor's board reads each
  // queue's day), by the call center's variable; records whose variables do not parse are in no queue.
  `
  CREATE INDEX cdrs_queue_start ON cdrs (iif(json_valid(variables), json_extract(variables, '$.cc_queue'), NULL), start_stamp);
  `,
];
