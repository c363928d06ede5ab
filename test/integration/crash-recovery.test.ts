import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SessionState } from "sip.js";
import { readWav } from "../../platform/media";
import type { MediaFileRow } from "../../platform/cdr/media-files";
import { openDatabase, openDatabaseFile } from "../../platform/store/db";
import { readDemoData, seedDemoData } from "../../platform/demo-data";
import { defaultOptions } from "../../platform/config";
import { DEMO_DOMAIN, DEMO_PASSWORD, demo } from "./harness";
import { tonesIn } from "./sip-fixture";
import { TestPhone, closePhoneMedia, until } from "./sip-phone";

/**
 * The platform killed with SIGKILL in the middle of a recorded call, then started again on the
 * same data folder as `npm start` would: it finishes what the crash cut off. The recording is a
 * WAV whose header tells its true length and whose audio is the call's; its media file row is
 * complete; both legs have a call record saying the platform crashed; the database is sound.
 */
const dataDir = mkdtempSync(join(tmpdir(), "agentbar-crash-"));
const phones: TestPhone[] = [];
let running: ChildProcess | undefined;

afterAll(async () => {
  for (const p of phones) await p.stop();
  await closePhoneMedia();
  if (running && running.exitCode === null) {
    running.kill("SIGKILL");
    await exited(running);
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** `npm start`'s platform in a process of its own; resolves with its URL once it listens. */
async function startProcess(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "platform/main.ts"], {
    env: {
      ...process.env,
      AGENTBAR_PORT: "0",
      AGENTBAR_CRM_PORT: "off",
      AGENTBAR_DATA_DIR: dataDir,
      AGENTBAR_LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running = child;
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await until(
    "the platform process listens",
    () => /running at http:\/\/\S+/.test(output) || child.exitCode !== null,
    60_000,
  );
  const url = /running at (http:\/\/\S+)/.exec(output)?.[1];
  if (!url) throw new Error(`the platform did not start:\n${output}`);
  return { child, url: url.replace("localhost", "127.0.0.1") };
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Reads the database file beside the running platform (SQLite's WAL lets both look). */
function query<T>(sql: string, ...args: unknown[]): T[] {
  const db = openDatabaseFile(join(dataDir, "platform.sqlite"), { readOnly: true });
  try {
    return db.prepare(sql).all(...(args as string[])) as T[];
  } finally {
    db.close();
  }
}

interface CdrJson {
  uuid: string;
  hangup_cause: string;
  xui_hangup_cause: string;
  answer_stamp: string;
  end_stamp: string;
  billsec: number;
  duration: number;
  media_file_id: string;
}

describe("a crash during a recorded call", () => {
  it("leaves a playable recording of its true length, complete rows and call records, and a sound database", async () => {
    // The data folder of a platform whose extension 1002 records its calls.
    const { db } = openDatabase(dataDir, (fresh) => seedDemoData(fresh, readDemoData(defaultOptions.demoFile)));
    db.prepare("UPDATE extensions SET auto_record = 1 WHERE extn = '1002'").run();
    db.close();

    const first = await startProcess();
    const alice = await TestPhone.start({
      url: first.url,
      extension: "1001",
      password: demo.extensionPassword,
      domain: DEMO_DOMAIN,
      tone: 440,
    });
    const bob = await TestPhone.start({
      url: first.url,
      extension: "1002",
      password: demo.extensionPassword,
      domain: DEMO_DOMAIN,
      tone: 1000,
    });
    phones.push(alice, bob);
    const call = alice.call("1002");
    const ringing = await bob.incoming();
    await ringing.answer();
    await call.waitState(SessionState.Established);
    await call.waitHears(1000);
    await ringing.waitHears(440);

    // Two seconds of the call on disk.
    let recording: MediaFileRow | undefined;
    await until(
      "the recording has begun",
      () => (recording = query<MediaFileRow>("SELECT * FROM media_files WHERE type = 'RECORD'")[0]) !== undefined,
    );
    const twoSeconds = 44 + 2 * 48000 * 4;
    await until("two seconds of the call are on disk", () => statSync(recording!.abs_path).size >= twoSeconds);
    expect(query<{ n: number }>("SELECT COUNT(*) AS n FROM cdrs")[0]!.n).toBe(0);

    first.child.kill("SIGKILL");
    await exited(first.child);
    const onDisk = statSync(recording!.abs_path).size;

    const second = await startProcess();
    try {
      const [row] = query<MediaFileRow>("SELECT * FROM media_files WHERE id = ?", recording!.id);
      expect(row!.processing_flag).toBe(0);
      const wav = await readWav(row!.abs_path);
      expect(wav.truncatedHeader).toBe(false);
      const frames = wav.channels[0]!.length;
      // Every whole sample frame that reached the disk is in the file and its header.
      expect(frames).toBe(Math.floor((onDisk - 44) / 4));
      expect(row!.file_size).toBe(44 + frames * 4);
      expect(statSync(row!.abs_path).size).toBe(row!.file_size);
      expect(row!.duration).toBe(Math.round(frames / 48000));
      expect(frames / 48000).toBeGreaterThanOrEqual(2);
      // It is the call: bob says 1000 Hz on the left, hears alice's 440 Hz on the right.
      const end = frames / 48000;
      expect(tonesIn(wav.channels[0]!, end - 1.2)).toContainEqual(expect.closeTo(1000, 0));
      expect(tonesIn(wav.channels[1]!, end - 1.2)).toContainEqual(expect.closeTo(440, 0));

      // Both legs have their records, through the API as anyone reads them.
      const signIn = await fetch(`${second.url}/api/sessions`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ login: "admin", password: DEMO_PASSWORD }),
      });
      const { token } = (await signIn.json()) as { token: string };
      const listed = await fetch(`${second.url}/api/cdrs?perPage=50`, { headers: { "X-XTRA-AUTH-ID": token } });
      const { data } = (await listed.json()) as { data: CdrJson[] };
      expect(data).toHaveLength(2);
      for (const cdr of data) {
        expect(cdr.hangup_cause).toBe("CRASH");
        expect(cdr.xui_hangup_cause).toMatch(/platform stopped/);
        expect(cdr.answer_stamp).not.toBe("");
        expect(cdr.end_stamp >= cdr.answer_stamp).toBe(true);
        expect(cdr.billsec).toBeGreaterThanOrEqual(2);
        expect(cdr.duration).toBeGreaterThanOrEqual(cdr.billsec);
      }
      expect(data.map((c) => c.uuid)).toContain(row!.channel_uuid);
      expect(data.map((c) => c.media_file_id)).toEqual([String(row!.id), String(row!.id)]);
    } finally {
      second.child.kill("SIGTERM");
      await exited(second.child);
    }
    const check = openDatabaseFile(join(dataDir, "platform.sqlite"), { readOnly: true });
    try {
      expect(check.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      check.close();
    }
  });
});
