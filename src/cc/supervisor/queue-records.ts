import type { Paged, PlatformClient } from "../../api";
import type { BodyReading } from "../../api/client";
import { listCdrsDecoded, readCdrPage, type CdrQuery } from "../../api/cdrs";
import { queueRecordOf, type QueueRecord } from "./queue-day";

/**
 * A queue's call records of the day, read off the page's thread. A day of 20,000 records is about
 * 17 MB of JSON; parsed, checked and counted on the page's thread it kept that thread busy for
 * most of a second while the board opened. Here the REST client fetches each page (its token,
 * renewal and errors as for every request) and hands the body's bytes to a worker (transferred,
 * not copied), which decodes, parses and checks them as `listCdrs` does (a record that cannot be
 * read refuses the page, naming its field) and posts back only what a queue's day reads
 * (`QueueRecord`). Where no worker can be made (no `Worker`, a script the page may not load) or
 * it fails to start, the same reading runs on the page's thread, as it does for a page that comes
 * while the worker is starting.
 */

/** What the page posts to the worker: a page's body. */
export interface PageRequest {
  id: number;
  body: ArrayBuffer;
}

/** What the worker posts back: `ready` once, when it runs; then each page's reading (or what broke it). */
export type WorkerReply = { ready: true } | PageReply;

/** A page's reading, or what broke it. */
export type PageReply = { id: number; reading: BodyReading<Paged<QueueRecord>> } | { id: number; error: string };

/** The worker's side: one page's body to its reading, what a queue's day reads of each record. */
export function answerPage(request: PageRequest): PageReply {
  try {
    return { id: request.id, reading: readCdrPage(request.body, queueRecordOf) };
  } catch (e) {
    return { id: request.id, error: e instanceof Error ? e.message : String(e) };
  }
}

/** The part of a `Worker` used here (tests give one of their own). */
export interface PageWorker {
  postMessage(message: PageRequest, transfer: Transferable[]): void;
  addEventListener(type: "message", listener: (e: MessageEvent<WorkerReply>) => void): void;
  addEventListener(type: "error", listener: (e: Event) => void): void;
  terminate(): void;
}

/** A worker is let go after this long without a page (a day is read at open and on a new day). */
export const WORKER_IDLE_MS = 15_000;
/** After a worker could not start, pages are read on the page's thread this long before one is tried again. */
export const WORKER_RETRY_MS = 60_000;

type Reading = BodyReading<Paged<QueueRecord>>;

/** Reads pages in a worker while it runs, on this thread otherwise. */
export class OffThreadPages {
  private worker: PageWorker | null = null;
  private ready = false;
  /** Pages posted to the worker, by id. */
  private readonly pending = new Map<number, { resolve: (r: Reading) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** When a worker last failed to start (ms). */
  private failedAt = -Infinity;

  constructor(private readonly makeWorker: () => PageWorker | null) {}

  /**
   * A page's body (which may be transferred, leaving it empty here) to its reading: in the worker
   * once it runs; a page that comes before (the worker is starting) is read here at once rather
   * than wait for it, since what is asked next depends on the day's first page.
   */
  readonly decode = (body: ArrayBuffer): Promise<Reading> => {
    clearTimeout(this.idleTimer);
    const worker = this.worker ?? this.start();
    if (!worker || !this.ready) {
      if (worker) this.idleLater(worker);
      return Promise.resolve(readHere(body));
    }
    return new Promise<Reading>((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      try {
        worker.postMessage({ id, body }, [body]);
      } catch {
        // Not posted (nothing is transferred then): read here, and the worker is not waited for.
        this.pending.delete(id);
        this.idleLater(worker);
        resolve(readHere(body));
      }
    });
  };

  /** Starts the worker now if none runs, so that it is ready for pages asked meanwhile. */
  warm(): void {
    const w = this.worker ?? this.start();
    if (w) this.idleLater(w);
  }

  /** The worker is let go after WORKER_IDLE_MS unless a page is handed to it meanwhile. */
  private idleLater(w: PageWorker): void {
    if (this.pending.size) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.stop(w), WORKER_IDLE_MS);
  }

  private start(): PageWorker | null {
    // A worker that could not start is not tried again at every page (a script the page may not
    // load fails each time): the pages are read here meanwhile.
    if (Date.now() - this.failedAt < WORKER_RETRY_MS) return null;
    let worker: PageWorker | null;
    try {
      worker = this.makeWorker();
    } catch {
      worker = null;
    }
    if (!worker) {
      this.failedAt = Date.now();
      return null;
    }
    const w = worker;
    this.worker = w;
    this.ready = false;
    w.addEventListener("message", (e) => {
      if (this.worker !== w) return;
      const reply = e.data;
      if ("ready" in reply) {
        this.ready = true;
        return;
      }
      const page = this.pending.get(reply.id);
      if (!page) return;
      this.pending.delete(reply.id);
      if ("reading" in reply) page.resolve(reply.reading);
      else page.reject(new Error(`the day's records could not be read: ${reply.error}`));
      this.idleLater(w);
    });
    // The worker's script could not be loaded or run: the pages that came while it started were
    // read here already, and so are the pages of the next WORKER_RETRY_MS; pages it held (it
    // broke after it ran) are lost with it (their reads fail and are asked again), and the next
    // page tries a worker again.
    w.addEventListener("error", () => {
      if (this.worker !== w) return;
      if (!this.ready) this.failedAt = Date.now();
      this.stop(w);
    });
    return w;
  }

  private stop(w: PageWorker): void {
    if (this.worker !== w) return;
    clearTimeout(this.idleTimer);
    w.terminate();
    this.worker = null;
    this.ready = false;
    for (const p of this.pending.values())
      p.reject(new Error("the day's records could not be read: the worker stopped"));
    this.pending.clear();
  }
}

/** On this thread: the same reading as the worker's. */
function readHere(body: ArrayBuffer): Reading {
  const reply = answerPage({ id: 0, body });
  if ("error" in reply) throw new Error(reply.error);
  return reply.reading;
}

/** The page's worker for the day's records (made when a page first needs it). */
const makeWorker = (): PageWorker | null =>
  typeof Worker === "function"
    ? (new Worker(new URL("./queue-records.worker.ts", import.meta.url), { type: "module" }) as PageWorker)
    : null;

let shared: OffThreadPages | undefined;

/** One page of a queue's records (`readDayRecords`' `readPage`), read off the page's thread. */
export function listQueueRecords(
  client: PlatformClient,
  query: CdrQuery,
  bodyIn?: () => void,
): Promise<Paged<QueueRecord>> {
  const pages = (shared ??= new OffThreadPages(makeWorker));
  return listCdrsDecoded(
    client,
    query,
    (body) => {
      bodyIn?.();
      return pages.decode(body);
    },
    "low",
  );
}

/** Starts the worker for a queue's pages now (pages about to be asked). */
export function startQueueRecordsWorker(): void {
  shared ??= new OffThreadPages(makeWorker);
  shared.warm();
}

/**
 * The same page read on the page's thread: for a few records (those that ended since a day kept in
 * the browser), where starting the worker would cost more than it saves.
 */
export function listQueueRecordsHere(client: PlatformClient, query: CdrQuery): Promise<Paged<QueueRecord>> {
  return listCdrsDecoded(client, query, async (body) => readHere(body));
}
