import type { Db } from "../store/db";
import type { ChannelBase } from "./channel";
import { cdrOf, type SoftSwitch } from "./soft-switch";
import type { Channel } from "./types";

/**
 * The call records of the legs that are up, kept on disk while they change, so that a platform
 * killed in the middle of calls writes their records when it starts again
 * (platform/cdr/cut-calls.ts). A leg's row is written when it is created, rings, answers, is
 * bridged or unbridged (a recording starts with its bridge) or held, and goes when the leg's own
 * record is written. Every `heartbeatMs` the rows are stamped as still up, so the time of a crash
 * is known to within that.
 */
export class CallJournal {
  private readonly keepRow;
  private readonly forgetRow;
  private readonly stamp;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly live = new Set<string>();

  constructor(db: Db, sw: SoftSwitch, heartbeatMs = 5000) {
    this.keepRow = db.prepare("INSERT OR REPLACE INTO live_calls (uuid, record, seen_at) VALUES (?, ?, ?)");
    this.forgetRow = db.prepare("DELETE FROM live_calls WHERE uuid = ?");
    this.stamp = db.prepare("UPDATE live_calls SET seen_at = ?");
    const keep = (...channels: Channel[]) => {
      for (const ch of channels) this.keep(ch as ChannelBase);
    };
    sw.on("channel-create", keep);
    sw.on("channel-progress", keep);
    sw.on("channel-answer", keep);
    sw.on("channel-bridge", keep);
    sw.on("channel-unbridge", keep);
    sw.on("channel-hold", (ch) => keep(ch));
    sw.on("channel-hangup", (ch) => {
      if (this.live.delete(ch.uuid)) this.forgetRow.run(ch.uuid);
    });
    this.heartbeat = setInterval(() => {
      if (this.live.size > 0) this.stamp.run(Date.now());
    }, heartbeatMs);
    this.heartbeat.unref();
  }

  close(): void {
    clearInterval(this.heartbeat);
  }

  private keep(ch: ChannelBase): void {
    // A leg that has ended has its own record already (its hang-up event follows).
    if (!ch.isUp) return;
    this.keepRow.run(ch.uuid, JSON.stringify(cdrOf(ch)), Date.now());
    this.live.add(ch.uuid);
  }
}
