import { DatabaseSync, enhance } from "@photostructure/sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { migrations } from "./schema";

/**
 * The platform's database: SQLite through Node's own `node:sqlite` API (the
 * `@photostructure/sqlite` package ships it prebuilt for Node 20; docs/decisions.md says why),
 * with better-sqlite3's `transaction()` (nested ones become savepoints) and `pragma()`.
 */
export type Db = ReturnType<typeof openDatabaseFile>;

/**
 * Opens a database file as it is (tests also read what a platform left behind). Named
 * parameters may come from a whole record: keys a statement does not name are left out.
 */
export function openDatabaseFile(file: string, options: { readOnly?: boolean } = {}) {
  return enhance(new DatabaseSync(file, { readOnly: options.readOnly ?? false, allowUnknownNamedParameters: true }));
}

/**
 * Opens (and creates on first use) the platform's SQLite database in `dataDir`, bringing its
 * schema up to date. `dataDir` ":memory:" gives a throw-away database. `fill` runs on a new
 * database in the same transaction as the schema, so that a failed first start (a broken demo
 * file, say) leaves nothing behind and the next start fills it again.
 */
export function openDatabase(dataDir: string, fill?: (db: Db) => void): { db: Db; created: boolean } {
  let file = ":memory:";
  if (dataDir !== ":memory:") {
    mkdirSync(dataDir, { recursive: true });
    file = join(dataDir, "platform.sqlite");
  }
  const db = openDatabaseFile(file);
  db.pragma("journal_mode = WAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 2000");
  const version = db.pragma("user_version", { simple: true }) as number;
  const created = version === 0;
  try {
    db.transaction(() => {
      for (let v = version; v < migrations.length; v++) {
        db.exec(migrations[v]!);
      }
      db.pragma(`user_version = ${migrations.length}`);
      if (created) fill?.(db);
    })();
  } catch (e) {
    db.close();
    throw e;
  }
  return { db, created };
}

/** Timestamps in the platform's text form, YYYY-MM-DD HH:MM:SS, in the platform's local time. */
export function timestamp(date: Date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return (
    `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())} ` +
    `${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}`
  );
}

/** Parses a platform timestamp (local time) back into a Date; undefined for "" or garbage. */
export function parseTimestamp(text: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = "0", mi = "0", s = "0"] = m;
  const date = new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  return Number.isNaN(date.getTime()) ? undefined : date;
}
