/**
 * Is it safe to create and close many wrtc peer connections in one long-lived process, as the
 * platform does for every call? Creates and closes connection pairs carrying a tone, a few at a
 * time, checks each carried media, and reports memory growth. The churn runs in a child process
 * so that a crash (wrtc's known failure is a segfault) is reported rather than ending the run.
 *
 * `--pc-first` closes the peer connections before stopping sink and track, the order a SIP stack
 * that tears down its session first would use.
 *
 * Run: npx tsx bench/wrtc-churn.ts [--pcs 100] [--concurrent 5] [--media-ms 300] [--pc-first]
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import wrtc from "@roamhq/wrtc";
import { FRAME_SAMPLES, SAMPLE_RATE } from "../platform/media/frame";
import { connectPeerConnectionPair } from "../platform/media/peer-connection-pair";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const PCS = option("pcs", 100);
const CONCURRENT = option("concurrent", 5);
const MEDIA_MS = option("media-ms", 300);
const PC_FIRST = process.argv.includes("--pc-first");

interface Progress {
  pcs: number;
  failures: number;
  rssMb: number;
  heapMb: number;
  elapsedS: number;
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** One pair: connect, send a tone one way for a while, check it arrived, tear down in order. */
async function cycle(): Promise<boolean> {
  const source = new wrtc.nonstandard.RTCAudioSource();
  const track = source.createTrack();
  let sink: InstanceType<typeof wrtc.nonstandard.RTCAudioSink> | undefined;
  let loudFrames = 0;
  const pair = await connectPeerConnectionPair((offerer, answerer) => {
    offerer.addTrack(track);
    answerer.addEventListener("track", (event) => {
      sink = new wrtc.nonstandard.RTCAudioSink(event.track);
      sink.ondata = (data: { samples: Int16Array }) => {
        if (data.samples.some((s) => Math.abs(s) > 1000)) loudFrames++;
      };
    });
  });
  const frame = Int16Array.from({ length: FRAME_SAMPLES }, (_, i) =>
    Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / SAMPLE_RATE)),
  );
  const timer = setInterval(
    () =>
      source.onData({
        samples: frame,
        sampleRate: SAMPLE_RATE,
        bitsPerSample: 16,
        channelCount: 1,
        numberOfFrames: FRAME_SAMPLES,
      }),
    10,
  );
  await new Promise((resolve) => setTimeout(resolve, MEDIA_MS));
  clearInterval(timer);
  if (PC_FIRST) pair.close();
  sink?.stop();
  track.stop();
  if (!PC_FIRST) pair.close();
  return loudFrames > 0;
}

async function churn(): Promise<void> {
  const started = performance.now();
  let pcs = 0;
  let failures = 0;
  const report = () => {
    const memory = process.memoryUsage();
    const progress: Progress = {
      pcs,
      failures,
      rssMb: mb(memory.rss),
      heapMb: mb(memory.heapUsed),
      elapsedS: Math.round((performance.now() - started) / 100) / 10,
    };
    process.send!(progress);
  };
  report();
  while (pcs < PCS) {
    const batch = Math.min(CONCURRENT, (PCS - pcs) / 2);
    const results = await Promise.all(Array.from({ length: batch }, () => cycle().catch(() => false)));
    pcs += 2 * batch;
    failures += results.filter((ok) => !ok).length;
    if (pcs % 20 === 0 || pcs >= PCS) report();
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  report();
  process.exit(0);
}

function main(): void {
  console.log(
    `wrtc churn: ${PCS} peer connections created and closed, ${CONCURRENT} pairs at a time, ${MEDIA_MS} ms of media each, ` +
      (PC_FIRST
        ? "peer connections closed before sink and track"
        : "sink and track stopped before the peer connections"),
  );
  console.log("  PCs  failed  RSS MB  heap MB  elapsed s");
  const child = fork(fileURLToPath(import.meta.url), ["--child", ...process.argv.slice(2)], {
    execArgv: ["--import", "tsx"],
  });
  let last: Progress | undefined;
  child.on("message", (progress: Progress) => {
    last = progress;
    console.log(
      `${String(progress.pcs).padStart(5)} ${String(progress.failures).padStart(7)} ${progress.rssMb.toFixed(1).padStart(7)} ${progress.heapMb.toFixed(1).padStart(8)} ${progress.elapsedS.toFixed(1).padStart(10)}`,
    );
  });
  child.on("exit", (code, signal) => {
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    console.log(
      `\nresult: the churn process ${how} after ${last?.pcs ?? 0} peer connections, ${last?.failures ?? 0} of them without media`,
    );
    process.exit(signal || code ? 1 : 0);
  });
}

if (process.argv.includes("--child")) void churn();
else main();
